/*
 * api-users: allocations through the allocation APIs of glib, OpenSSL and
 * SQLite, each library opened with dlopen (no headers needed), each from
 * a function of its own that leaks what it got: the allocating function
 * mt-group names is that function, the libraries' frames skipped.
 *
 *   api-users    prints "NAME COUNT BYTES" for each library it found
 *              (glib, openssl, sqlite), and exits 0
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define N 40

static void *keep[3][N];

static void *
sym(const char *lib, const char *name)
{
	void *h = dlopen(lib, RTLD_NOW);

	return h ? dlsym(h, name) : NULL;
}

__attribute__((noinline)) static long
glib_user(void *(*g_malloc)(size_t))
{
	int k;

	for (k = 0; k < N; k++)
		keep[0][k] = g_malloc(101);
	return 101L * N;
}

__attribute__((noinline)) static long
openssl_user(void *(*crypto_malloc)(size_t, const char *, int))
{
	int k;

	for (k = 0; k < N; k++)
		keep[1][k] = crypto_malloc(203, __FILE__, __LINE__);
	return 203L * N;
}

__attribute__((noinline)) static long
sqlite_user(void *(*sqlite3_malloc)(int))
{
	int k;

	for (k = 0; k < N; k++)
		keep[2][k] = sqlite3_malloc(307);
	return 307L * N;
}

int
main(void)
{
	void *f;

	if ((f = sym("libglib-2.0.so.0", "g_malloc")))
		printf("glib %d %ld\n", N, glib_user((void *(*)(size_t))f));
	if ((f = sym("libcrypto.so.3", "CRYPTO_malloc")))
		printf("openssl %d %ld\n", N, openssl_user((void *(*)(size_t, const char *, int))f));
	if ((f = sym("libsqlite3.so.0", "sqlite3_malloc")))
		printf("sqlite %d %ld\n", N, sqlite_user((void *(*)(int))f));
	return 0;
}
