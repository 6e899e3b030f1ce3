// WeftRun: a weft command line run in MSBuild's process (Weft.Tasks.csproj says why).
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace Weft.Tasks;

/// <summary>
/// Runs weft with <see cref="Arguments"/> (one an item; no shell, no quoting) through weft_main
/// of <see cref="Library"/>, as the Exec task would run the executable: what weft writes to stderr is logged at <see cref="StandardErrorImportance"/>,
/// its canonical diagnostics ("FILE(LINE): error WEFT0001: ...") as MSBuild's errors and
/// warnings; stdout at <see cref="StandardOutputImportance"/>. A non-zero
/// exit code fails the task unless <see cref="IgnoreExitCode"/> (with an error of its own when
/// weft printed none).
/// </summary>
public sealed class WeftRun : Microsoft.Build.Utilities.Task
{
    [Required] public string Library { get; set; } = "";
    [Required] public ITaskItem[] Arguments { get; set; } = [];
    public bool IgnoreExitCode { get; set; }
    public string StandardOutputImportance { get; set; } = "low";
    public string StandardErrorImportance { get; set; } = "high";
    /// <summary>What each line of standard output is logged with in front ("weft: ").</summary>
    public string StandardOutputPrefix { get; set; } = "";
    [Output] public int ExitCode { get; private set; }

    public override bool Execute()
    {
        var output = new Output();
        string[] arguments = ["weft", .. Arguments.Select(a => a.ItemSpec)];
        var clock = System.Diagnostics.Stopwatch.StartNew();
        try
        {
            ExitCode = WeftMain.Run(Library, arguments, output);
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException or BadImageFormatException)
        {
            Log.LogError(null, "WEFT0015", null, null, 0, 0, 0, 0,
                "weft could not be loaded into MSBuild's process from '{0}': {1} (set WeftInProcess=false to run the weft executable instead)",
                Library, e.Message);
            return false;
        }
        Log.LogMessage(MessageImportance.Normal, "{0} (in MSBuild's process, {1}): exit code {2}, {3:F1} ms",
            string.Join(" ", arguments), Library, ExitCode, clock.Elapsed.TotalMilliseconds);
        bool errorPrinted = false;
        foreach (var (stream, line) in output.Lines())
        {
            if (stream == 2)
                errorPrinted |= Log.LogMessageFromText(line, Importance(StandardErrorImportance));
            else
                Log.LogMessage(Importance(StandardOutputImportance), "{0}{1}", StandardOutputPrefix, line);
        }
        if (ExitCode != 0 && !IgnoreExitCode && !errorPrinted)
            Log.LogError(null, "WEFT0000", null, null, 0, 0, 0, 0, "weft exited with code {0} without saying why", ExitCode);
        return IgnoreExitCode || ExitCode == 0 && !errorPrinted;
    }

    static MessageImportance Importance(string name) => name.ToLowerInvariant() switch
    {
        "high" => MessageImportance.High,
        "normal" => MessageImportance.Normal,
        _ => MessageImportance.Low,
    };

    /// <summary>What weft wrote, by stream, split into lines in the order they ended.</summary>
    sealed class Output
    {
        readonly List<(int Stream, string Line)> lines = [];
        readonly MemoryStream[] pending = [new(), new(), new()]; // by stream: 1 stdout, 2 stderr

        public void Write(int stream, ReadOnlySpan<byte> bytes)
        {
            lock (lines)
            {
                var buffer = pending[stream == 1 ? 1 : 2];
                for (int newline; (newline = bytes.IndexOf((byte)'\n')) >= 0; bytes = bytes[(newline + 1)..])
                {
                    buffer.Write(bytes[..newline]);
                    lines.Add((stream, Take(buffer)));
                }
                buffer.Write(bytes);
            }
        }

        public List<(int Stream, string Line)> Lines()
        {
            for (int stream = 1; stream <= 2; ++stream)
                if (pending[stream].Length > 0)
                    lines.Add((stream, Take(pending[stream])));
            return lines;
        }

        static string Take(MemoryStream buffer)
        {
            var text = Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length).TrimEnd('\r');
            buffer.SetLength(0);
            return text;
        }
    }

    /// <summary>weft_main of the native library, loaded once a process.</summary>
    static unsafe class WeftMain
    {
        static readonly Dictionary<string, IntPtr> entries = [];

        public static int Run(string library, string[] arguments, Output output)
        {
            IntPtr entry;
            lock (entries)
                if (!entries.TryGetValue(library, out entry))
                {
                    entries[library] = entry = NativeLibrary.GetExport(NativeLibrary.Load(library), "weft_main");
                    ThreadPool.UnsafeQueueUserWorkItem(_ => Prepare(), null);
                }
            var argv = new IntPtr[arguments.Length];
            var context = GCHandle.Alloc(output);
            try
            {
                for (int i = 0; i < arguments.Length; ++i)
                    argv[i] = Marshal.StringToCoTaskMemUTF8(arguments[i]);
                fixed (IntPtr* args = argv)
                    return ((delegate* unmanaged<int, IntPtr*, delegate* unmanaged<IntPtr, int, byte*, nuint, void>, IntPtr, int>)entry)(
                        argv.Length, args, &Write, GCHandle.ToIntPtr(context));
            }
            finally
            {
                foreach (var arg in argv)
                    Marshal.FreeCoTaskMem(arg);
                context.Free();
            }
        }

        /// <summary>
        /// What weft's first line of output runs (the callback into this class and the code it
        /// calls) compiled on another thread, while the first command runs: otherwise the step that
        /// first prints pays for it, the report after the tests (4 ms of a 10 ms report).
        /// </summary>
        static void Prepare()
        {
            var output = new Output();
            var context = GCHandle.Alloc(output);
            try
            {
                ReadOnlySpan<byte> line = "weft\n"u8;
                fixed (byte* data = line)
                    ((delegate* unmanaged<IntPtr, int, byte*, nuint, void>)&Write)(GCHandle.ToIntPtr(context), 1, data, (nuint)line.Length);
                output.Lines();
                Importance("high");
            }
            catch (Exception)
            {
                // Only the head start is lost: a thread of the pool must not take MSBuild down.
            }
            finally
            {
                context.Free();
            }
        }

        [UnmanagedCallersOnly]
        static void Write(IntPtr context, int stream, byte* data, nuint size) =>
            ((Output)GCHandle.FromIntPtr(context).Target!).Write(stream, new ReadOnlySpan<byte>(data, checked((int)size)));
    }
}
