// The weft executable and how it is run: its arguments each passed whole (no shell), its errors
// turned into WeftException with what weft said.
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Weft.Coverage;

/// A failure the user must read: its message says what happened and what to do; Diagnostic is
/// the line to print, with the code MSBuild and CI logs know weft's errors by (docs/cli.md).
internal sealed class WeftException : Exception
{
    public string Diagnostic { get; }

    public WeftException(int code, string message) : base(message) =>
        Diagnostic = $"weft: error WEFT{code:D4}: {message}";

    /// What weft itself printed, which carries its own code (--message-format msbuild).
    public static WeftException Printed(string said) => new(said);

    private WeftException(string said) : base(said) => Diagnostic = said;

    public const int NothingToMeasure = 7, NoHits = 13, NotMeasured = 14;
}

internal sealed class WeftTool
{
    public string Path { get; }

    private WeftTool(string path) => Path = path;

    /// The package's folder for this machine's weft (linux-x64/weft, linux-arm64/weft,
    /// win-x64/weft.exe, which Windows on Arm64 runs emulated), or null on any other machine.
    public static string? ToolsFolderEntry() => RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 when OperatingSystem.IsLinux() => "linux-x64/weft",
        Architecture.Arm64 when OperatingSystem.IsLinux() => "linux-arm64/weft",
        Architecture.X64 or Architecture.Arm64 when OperatingSystem.IsWindows() => "win-x64/weft.exe",
        _ => null,
    };

    /// WEFT_EXE when it is set, else \p packaged (the front end's own way to the package's weft).
    public static WeftTool Find(string? packaged)
    {
        string? chosen = Environment.GetEnvironmentVariable("WEFT_EXE");
        if (string.IsNullOrEmpty(chosen))
            chosen = packaged;
        if (string.IsNullOrEmpty(chosen))
            throw new WeftException(WeftException.NotMeasured,
                $"the Weft package has no weft for this machine ({RuntimeInformation.OSDescription} " +
                $"{RuntimeInformation.ProcessArchitecture}): set WEFT_EXE to a weft built for it");
        string weft = System.IO.Path.GetFullPath(chosen);
        if (!File.Exists(weft))
            throw new WeftException(WeftException.NotMeasured,
                $"the weft executable is not at {weft} (restore the Weft package, or set WEFT_EXE)");
        // NuGet does not keep the executable bit of the files it extracts.
        if (!OperatingSystem.IsWindows())
            File.SetUnixFileMode(weft, File.GetUnixFileMode(weft) | UnixFileMode.UserExecute);
        return new WeftTool(weft);
    }

    /// Runs weft with \p args (its messages in MSBuild's form, with their codes); its standard output, or a WeftException with what it printed on
    /// standard error when it fails.
    public string Run(IEnumerable<string> args)
    {
        var start = new ProcessStartInfo(Path)
        {
            RedirectStandardError = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        foreach (string a in args)
            start.ArgumentList.Add(a);
        start.ArgumentList.Add("--message-format");
        start.ArgumentList.Add("msbuild");
        using var process = Process.Start(start)
            ?? throw new WeftException(WeftException.NotMeasured, $"cannot start {Path}");
        var stdout = process.StandardOutput.ReadToEndAsync();
        string stderr = process.StandardError.ReadToEnd();
        process.WaitForExit();
        string output = stdout.GetAwaiter().GetResult();
        if (process.ExitCode != 0)
        {
            string said = stderr.Trim();
            throw said.Length > 0 ? WeftException.Printed(said)
                : new WeftException(0, $"weft {start.ArgumentList[0]} failed (exit code {process.ExitCode}) without saying why");
        }
        return output;
    }
}
