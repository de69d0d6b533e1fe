// C++ exceptions thrown through allocating frames, for a shadow-stack
// unwinder: destructors that allocate while the stack unwinds, a catch
// and rethrow half-way, a nested throw inside a destructor's own try, an
// exception carried to another thread (std::exception_ptr), and threads
// that throw and catch on their own.  Prints what it computed: the same
// with and without mt-record, whatever the unwinder.
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static volatile long sink;

struct Guard {
	std::string s;
	explicit Guard(int d) : s(24 + d, 'g') {}
	~Guard()
	{
		std::vector<int> v(8 + s.size() % 5);	// allocates while unwinding
		sink += (long)v.size();
		try {
			if (s.size() % 7 == 0)
				throw std::logic_error("inner");
		} catch (const std::logic_error &e) {
			sink += (long)std::strlen(e.what());
		}
	}
};

__attribute__((noinline)) static int
thrower(int d)
{
	Guard g(d);
	auto p = std::make_unique<int[]>((size_t)d + 1);
	if (d == 0)
		throw std::runtime_error(std::string(40, 'x'));
	return thrower(d - 1) + p[0] + 1;
}

__attribute__((noinline)) static int
rethrower(int d)
{
	Guard g(d);
	if (d == 5) {
		try {
			return thrower(d + 3);
		} catch (const std::runtime_error &) {
			auto more = std::make_unique<std::string>(100, 'r');
			sink += (long)more->size();
			throw;
		}
	}
	return rethrower(d - 1) + 1;
}

static long
rounds(int n, int salt)
{
	long total = 0;

	for (int i = 0; i < n; i++) {
		try {
			total += (i % 3 == 0) ? rethrower(10 + i % 9) : thrower((i + salt) % 30);
		} catch (const std::exception &e) {
			total += (long)std::strlen(e.what());
		}
		std::vector<std::string> after(3, std::string(50, 'a'));
		total += (long)after.size();
	}
	return total;
}

int
main()
{
	long total = rounds(1500, 0);
	std::exception_ptr carried;
	std::thread t([&] {
		try {
			thrower(12);
		} catch (...) {
			carried = std::current_exception();
		}
	});
	t.join();
	try {
		std::rethrow_exception(carried);
	} catch (const std::runtime_error &e) {
		total += (long)std::strlen(e.what());
	}
	std::vector<std::thread> ts;
	std::vector<long> got(4);
	for (int k = 0; k < 4; k++)
		ts.emplace_back([k, &got] { got[(size_t)k] = rounds(300, k); });
	for (auto &th : ts)
		th.join();
	for (long g : got)
		total += g;
	std::printf("throw: %ld\n", total);
	return 0;
}
