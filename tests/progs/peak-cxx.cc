// peak-cxx: a C++ program whose heap peaks once in the middle: a vector
// of strings and a map built, both dropped, then a smaller list kept to
// the end.  new and delete through malloc.
#include <cstdio>
#include <list>
#include <map>
#include <string>
#include <vector>

// A template: its name, with the map's type, is long (mt-group's
// shortening); the allocating function, as the containers are the API's.
template <class Map>
static std::size_t
build(void)
{
	std::vector<std::string> words;
	Map index;

	for (int i = 0; i < 20000; i++) {
		words.push_back(std::string(40 + i % 50, 'a' + i % 26));
		index[i * 7] = words.back();
	}
	return words.size() + index.size();
}

int
main(void)
{
	std::list<std::vector<int>> rest;
	std::size_t n = build<std::map<int, std::string>>();

	for (int i = 0; i < 100; i++)
		rest.push_back(std::vector<int>(1000, i));
	std::printf("%zu %zu\n", n, rest.size());
	return 0;
}
