// Placeholder: filled by issue 5.
int main(void) { return 0; }
