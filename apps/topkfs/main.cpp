#include <cstdio>
int main() { std::puts("topkfs"); return 0; }
