print("victim-swift")
