// Placeholder: filled by its issue.
int main() { return 0; }
