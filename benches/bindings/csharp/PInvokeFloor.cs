// The floor of a C# binding's cost: benches/floor/host.c, unchanged, inside a Mono program
// (forward.c makes it a shared library), where each of its callbacks (every event and tool
// call) also enters managed code through a reverse P/Invoke and leaves it. Beside the C host,
// in the same run, it measures what Mono itself charges a C library that calls back: the
// native-to-managed transitions, and on library threads their attaching to the runtime at
// their first callback. A C# binding under Mono can cost no less. Built by
// benches/bindings/build_csharp.sh pinvokefloor.
//
//   PInvokeFloor.exe MODE KIND BASE_URL PATTERN   (as floor_host: thread|run|submit|…)
//
// Exit 3 when host.c's callbacks did not all reach managed code: 53 text deltas and 3 tool
// calls per scenario at least.
using System;
using System.Runtime.InteropServices;
using System.Threading;

internal static class PInvokeFloor
{
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    private delegate void ForwardFn(uint kind);

    [DllImport("floorforward")]
    private static extern void floor_set_forward(ForwardFn fn);

    [DllImport("floorforward")]
    private static extern int floor_host_main(int argc, string[] argv);

    private static long forwarded;

    // Kept in a static field: the library calls it until the program ends.
    private static readonly ForwardFn Forward = kind => Interlocked.Increment(ref forwarded);

    private static int Main(string[] args)
    {
        floor_set_forward(Forward);
        var argv = new string[args.Length + 1];
        argv[0] = "PInvokeFloor";
        Array.Copy(args, 0, argv, 1, args.Length);
        int code = floor_host_main(argv.Length, argv);
        if (code == 0)
        {
            long scenarios = args[0] == "single" ? 1 : args[0] == "warm" ? 51 : 100;
            long got = Interlocked.Read(ref forwarded);
            if (got < scenarios * (53 + 3))
            {
                Console.Error.WriteLine("PInvokeFloor: {0} callbacks reached managed code, expected at least {1}",
                    got, scenarios * (53 + 3));
                return 3;
            }
        }
        return code;
    }
}
