// Placeholder: filled by issue 7.
int main(void) { return 0; }
