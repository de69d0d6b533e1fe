// leak-cxx: a C++ program with three real leaks (a string object and its
// characters, a vector's elements, an array) among what every C++ program
// keeps to its end: libstdc++'s emergency pool and stdout's buffer.
#include <cstdio>
#include <string>
#include <vector>

static std::string *name;
static std::vector<int> *numbers;
static int *table;

int
main(void)
{
	name = new std::string(100, 'x');
	numbers = new std::vector<int>(50, 7);
	table = new int[30];
	name = nullptr;
	numbers = nullptr;
	table = nullptr;
	std::printf("leaked\n");
	return 0;
}
