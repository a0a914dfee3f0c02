// Linked with one layer of the library whole and only the layers it declares (meson.build): it
// runs nothing; that it links is the check that no layer calls one above it.
int main() { return 0; }
