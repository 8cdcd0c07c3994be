// Linked with one floor of the library and only the floors it may use (tests/CMakeLists.txt builds one such
// program per floor): every object of those floors goes in whole, so a floor that calls into a floor above it
// leaves a symbol undefined and this program does not link. It runs nothing; building it is the test.
int main() { return 0; }
