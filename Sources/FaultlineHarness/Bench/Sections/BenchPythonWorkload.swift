/// The python3 workload run under each setup: json, re, hashlib,
/// collections and threads over RECORDS records (argv[1]), all from the
/// standard library. It prints a summary and a digest, each line starting
/// with `workload: `; those lines must be the same under every setup (a
/// peer may print its own lines too).
enum BenchPythonWorkload {
    /// The script's source.
    static let source = """
        import collections, hashlib, json, re, sys, threading
        n = int(sys.argv[1])
        data = [{"id": i, "name": "item%d" % i, "tags": [str(j) * (j + 1) for j in range(i % 9)]} for i in range(n)]
        text = json.dumps(data)
        back = json.loads(text)
        counts = collections.Counter(len(d["tags"]) for d in back)
        ids = re.findall(r'"item(\\d+)"', text)
        big = "".join(d["name"] * 50 for d in back[:2000])
        def work(k, out):
            out.append(sum(len(json.dumps(back[i::k])) for i in range(k)))
        out = []
        threads = [threading.Thread(target=work, args=(k, out)) for k in (3, 5, 7)]
        for t in threads: t.start()
        for t in threads: t.join()
        print("workload:", len(text), sorted(counts.items()), len(ids), len(big), sorted(out))
        print("workload:", hashlib.sha256(text.encode()).hexdigest())

        """

    /// The lines of `stdout` the workload printed itself.
    static func outputKey(_ stdout: String) -> String {
        stdout.split(separator: "\n").filter { $0.hasPrefix("workload: ") }.joined(separator: "\n")
    }
}
