print("faultline: not yet")
