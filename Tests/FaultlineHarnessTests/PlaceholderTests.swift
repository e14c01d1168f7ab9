import Testing
@Test func harnessPlaceholder() { #expect(Bool(true)) }
