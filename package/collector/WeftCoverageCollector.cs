// weft's VSTest data collector: `dotnet test --collect "XPlat Code Coverage"` with the Weft
// package in place of coverlet.collector.
//
// At the start of the test session, before the test host starts, the assemblies under test (the
// test project's project references, which the package's targets list beside the test assembly
// as NAME.weft-covered.txt) are kept aside and woven in place by the weft executable the package
// carries, with `coverage` and the options of the run settings (coverlet.collector's names:
// Include, Exclude, ExcludeByAttribute, ExcludeByFile, SkipAutoProps, IncludeTestAssembly,
// Format). The woven code writes its hits into a folder of the collector's when the test host
// exits. At the end of the session the collector waits for the test host to be gone, makes the
// report with `weft coverage report`, puts the original assemblies back and hands the report to
// the test platform as an attachment, which it copies to TestResults/<guid>/coverage.cobertura.xml.
//
// Nothing here throws into the test platform: a failure is a warning in the test run's output and
// leaves the assemblies as they were.
using System.ComponentModel;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Xml;
using Microsoft.VisualStudio.TestPlatform.ObjectModel.DataCollection;

namespace Weft.Collector;

[DataCollectorFriendlyName("XPlat code coverage")]
[DataCollectorTypeUri("datacollector://Weft/Coverage/1.0")]
public sealed class WeftCoverageCollector : DataCollector, ITestExecutionEnvironmentSpecifier
{
    private DataCollectionEvents? _events;
    private DataCollectionSink? _sink;
    private DataCollectionLogger? _logger;
    private DataCollectionContext? _context;
    private XmlElement? _configuration;
    private Session? _session;
    private readonly List<int> _testHosts = new();

    public override void Initialize(XmlElement? configurationElement, DataCollectionEvents events,
        DataCollectionSink dataSink, DataCollectionLogger logger,
        DataCollectionEnvironmentContext? environmentContext)
    {
        _events = events;
        _sink = dataSink;
        _logger = logger;
        _context = environmentContext?.SessionDataCollectionContext;
        _configuration = configurationElement;
        events.SessionStart += OnSessionStart;
        events.SessionEnd += OnSessionEnd;
        events.TestHostLaunched += OnTestHostLaunched;
    }

    /// The hits go to the session's folder whatever the environment the tests inherit says.

    /// The hits go where the woven assemblies say, whatever WEFT_COVERAGE_FILE the tests would
    /// inherit (an empty value is no value to them).
    public IEnumerable<KeyValuePair<string, string>> GetTestExecutionEnvironmentVariables() =>
        new[] { new KeyValuePair<string, string>("WEFT_COVERAGE_FILE", "") };

    private void OnTestHostLaunched(object? sender, TestHostLaunchedEventArgs e)
    {
        lock (_testHosts)
            _testHosts.Add(e.TestHostProcessId);
    }

    private void OnSessionStart(object? sender, SessionStartEventArgs e)
    {
        try
        {
            var sources = e.GetPropertyValue<IEnumerable<string>>("TestSources") ?? Array.Empty<string>();
            var settings = Settings.Read(_configuration);
            _session = Session.Start(Weft(), sources, settings, Warn);
        }
        catch (Exception ex)
        {
            Warn($"weft: coverage not measured: {ex.Message}");
            _session = null;
        }
    }

    private void OnSessionEnd(object? sender, SessionEndEventArgs e)
    {
        var session = _session;
        _session = null;
        if (session is null)
            return;
        try
        {
            WaitForTestHosts();
            foreach (var report in session.Finish())
                Attach(report);
        }
        catch (Exception ex)
        {
            Warn($"weft: no coverage report: {ex.Message}");
        }
        finally
        {
            session.Restore(Warn);
        }
    }

    /// The test hosts write their hits as they exit: wait for them (a host still running after a
    /// minute has its hits missing from the report).
    private void WaitForTestHosts()
    {
        int[] ids;
        lock (_testHosts)
            ids = _testHosts.ToArray();
        var deadline = DateTime.UtcNow.AddMinutes(1);
        foreach (int id in ids)
        {
            try
            {
                using var process = Process.GetProcessById(id);
                var left = deadline - DateTime.UtcNow;
                if (left > TimeSpan.Zero && !process.WaitForExit(left))
                    Warn($"weft: the test host {id} is still running; its hits may be missing");
            }
            catch (ArgumentException)
            {
                // Gone already.
            }
        }
    }

    private void Attach(string path)
    {
        if (_sink is null || _context is null)
            return;
        using var sent = new ManualResetEventSlim();
        AsyncCompletedEventHandler done = (_, _) => sent.Set();
        _sink.SendFileCompleted += done;
        try
        {
            _sink.SendFileAsync(_context, path, false);
            if (!sent.Wait(TimeSpan.FromSeconds(30)))
                Warn($"weft: the test platform did not take {path} in 30 s");
        }
        finally
        {
            _sink.SendFileCompleted -= done;
        }
    }

    private void Warn(string message)
    {
        if (_logger is not null && _context is not null)
            _logger.LogWarning(_context, message);
        else
            Console.Error.WriteLine(message);
    }

    /// The weft executable of the package for this machine: tools/linux-x64/weft,
    /// tools/linux-arm64/weft or tools/win-x64/weft.exe, two folders above this one
    /// (build/collector/). WEFT_EXE names another (a weft built for a machine the package has
    /// none for).
    private static string Weft()
    {
        string? chosen = Environment.GetEnvironmentVariable("WEFT_EXE");
        if (string.IsNullOrEmpty(chosen))
        {
            string? tools = RuntimeInformation.ProcessArchitecture switch
            {
                Architecture.X64 when OperatingSystem.IsLinux() => "linux-x64/weft",
                Architecture.Arm64 when OperatingSystem.IsLinux() => "linux-arm64/weft",
                Architecture.X64 or Architecture.Arm64 when OperatingSystem.IsWindows() => "win-x64/weft.exe",
                _ => null,
            };
            if (tools is null)
                throw new PlatformNotSupportedException(
                    $"the Weft package has no weft for this machine ({RuntimeInformation.OSDescription} " +
                    $"{RuntimeInformation.ProcessArchitecture}): set WEFT_EXE to a weft built for it, " +
                    "or leave the weft data collector out");
            string here = Path.GetDirectoryName(typeof(WeftCoverageCollector).Assembly.Location)!;
            chosen = Path.Combine(here, "..", "..", "tools", tools);
        }
        string weft = Path.GetFullPath(chosen);
        if (!File.Exists(weft))
            throw new FileNotFoundException($"the weft executable is not at {weft}");
        // NuGet does not keep the executable bit of the files it extracts.
        if (!OperatingSystem.IsWindows())
            File.SetUnixFileMode(weft, File.GetUnixFileMode(weft) | UnixFileMode.UserExecute);
        return weft;
    }

    protected override void Dispose(bool disposing)
    {
        if (_events is not null)
        {
            _events.SessionStart -= OnSessionStart;
            _events.SessionEnd -= OnSessionEnd;
            _events.TestHostLaunched -= OnTestHostLaunched;
            _events = null;
        }
        _session?.Restore(Warn);
        _session = null;
        base.Dispose(disposing);
    }
}
