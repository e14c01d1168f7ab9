// Placeholder until the malloc shim lands (issue 4).
