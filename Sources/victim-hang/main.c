// Placeholder: filled by its issue.
int main(void) { return 0; }
