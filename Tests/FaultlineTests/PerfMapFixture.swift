/// An excerpt of a real perf map file: `/tmp/perf-6102.map`, written by
/// node v20.20.2 (Debian's /usr/bin/node) run as
/// `faultline exec -- node --perf-basic-prof busy.js` on 2026-11-23, where
/// busy.js is
/// `function spin(){const t=Date.now();while(Date.now()<t+4000){}}` and
/// `setTimeout(spin,1000)`. Its first 6 lines (builtins, inside node's own
/// text) and lines 2310–2354 of 2354; the report of that run's hang had
/// `0x7f42c9ec6714` in its culprit stack (frame 6, a return address),
/// printed as `?` before perf maps were read.
enum PerfMapFixture {
    /// The file's text, as node wrote it.
    static let node = """
18c4000 300 Builtin:DeoptimizationEntry_Eager
18c4340 304 Builtin:DeoptimizationEntry_Lazy
18c4680 aa0 Builtin:RecordWriteSaveFP
18c5140 49c Builtin:RecordWriteIgnoreFP
18c5600 14c Builtin:EphemeronKeyBarrierSaveFP
18c5780 74 Builtin:EphemeronKeyBarrierIgnoreFP
27f9145c8aee 1e JS:~normalizeEncoding node:internal/util:202:27
27f9145c8bd6 9 JS:~isInt32 node:internal/validators:44:17
27f9145c8cc6 25 JS:~ node:internal/fs/utils:693:42
27f9145c909e 203 JS:~stringToFlags node:internal/fs/utils:558:23
27f9145c965e 186 JS:~Module._compile node:internal/modules/cjs/loader:1483:37
27f9145c9b2e 106 JS:~wrapSafe node:internal/modules/cjs/loader:1422:18
27f9145c9eee 5 Eval:~ /tmp/h70-busy.js:1:1
27f9145c9fc6 15 JS:~ /tmp/h70-busy.js:1:1
27f9145ca4de d7 JS:~makeRequireFunction node:internal/modules/helpers:133:29
27f9145ca78e 23 JS:~lazyModule node:internal/modules/helpers:116:20
27f9145ca9fe c JS:~setHasStartedUserCJSExecution node:internal/modules/helpers:374:32
27f9145cac6e de JS:~setTimeout node:timers:139:20
27f9145cbcd6 b4 JS:~Timeout node:internal/timers:170:14
27f9145cd7e6 2d JS:~incRefCount node:internal/timers:310:21
27f9145cd9ae 4c JS:~initAsyncResource node:internal/timers:160:27
27f9145cdaf6 17 JS:~newAsyncId node:internal/async_hooks:417:20
27f9145cf016 23 JS:~getDefaultTriggerAsyncId node:internal/async_hooks:433:34
27f9145cf16e d JS:~initHooksExist node:internal/async_hooks:478:24
27f9145cf256 10 JS:~hasHooks node:internal/async_hooks:470:18
27f9145cf436 ad JS:~insert node:internal/timers:366:16
27f9145cf626 a JS:~ node:internal/timers:120:65
27f9145cf746 37 JS:~TimersList node:internal/timers:246:14
27f9145cfb66 3f JS:~insert node:internal/priority_queue:26:9
27f9145d001e 67 JS:~percolateUp node:internal/priority_queue:69:14
27f9145d01a6 8 JS:~setPosition node:internal/timers:428:21
27f9145d028e 34 JS:~append node:internal/linkedlist:30:16
27f9145d058e 32 JS:~remove node:internal/linkedlist:16:16
27f9145d0776 93 JS:~processTimers node:internal/timers:504:25
27f9145d090e c JS:~peek node:internal/priority_queue:37:7
27f9145d0bfe 286 JS:~listOnTimeout node:internal/timers:524:25
27f9145d109e 13 JS:~peek node:internal/linkedlist:10:14
27f9145d1196 2a JS:~emitBeforeScript node:internal/async_hooks:509:26
27f9145d12e6 b4 JS:~pushAsyncContext node:internal/async_hooks:539:26
27f9145d14ce 2f JS:~spin /tmp/h70-busy.js:1:14
7f42c9ec5b80 178 JS:^spin /tmp/h70-busy.js:1:14
7f42c9ec5d40 130 JS:^SafeMap node:internal/per_context/primordials:408:16
7f42c9ec5e80 230 JS:^wrappedFn node:internal/errors:536:21
7f42c9ec60c0 524 JS:^dirname node:path:1407:10
7f42c9ec6600 200 JS:*spin /tmp/h70-busy.js:1:14
27f9145d1afe d JS:~destroyHooksExist node:internal/async_hooks:486:27
27f9145d1bee 20 JS:~emitAfterScript node:internal/async_hooks:517:25
27f9145d1d56 a7 JS:~popAsyncContext node:internal/async_hooks:553:25
27f9145d1f36 d JS:~enabledHooksExist node:internal/async_hooks:474:27
27f9145d201e 20 JS:~shift node:internal/priority_queue:103:8
27f9145d212e 80 JS:~removeAt node:internal/priority_queue:89:11
"""

    /// The culprit stack's JIT frame (a return address) in that report.
    static let spinReturnAddress: UInt64 = 0x7f42c9ec6714
}
