// weft's VSTest data collector: `dotnet test --collect "XPlat Code Coverage"` with the Weft
// package in place of coverlet.collector.
//
// At the start of the test session, before the test host starts, the assemblies under test of
// each test assembly (its project references, which the package's targets list beside it in
// NAME.weft-coverage.txt) are woven in place by the weft executable the package carries, with
// `coverage` and the options of the run settings (coverlet.collector's names: Include, Exclude,
// ExcludeByAttribute, ExcludeByFile, SkipAutoProps, IncludeTestAssembly, DeterministicReport,
// Format). The woven code writes its hits into a folder of the collector's when the test host
// exits. At the end of the session the collector waits for the test host to be gone, makes the
// report with `weft coverage report`, puts the original assemblies back and hands the report to
// the test platform as an attachment, which it copies to TestResults/<guid>/coverage.cobertura.xml.
//
// Nothing here throws into the test platform: a session that measures nothing, writes no hits or
// makes no report says why as an error in the test run's output, and leaves the assemblies as
// they were.
using System.ComponentModel;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Xml;
using Microsoft.VisualStudio.TestPlatform.ObjectModel.DataCollection;
using Weft.Coverage;

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
    private string? _folder; // the session's own, private: data and reports
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
            var ignored = new List<string>();
            var settings = RunSettings.Read(_configuration, ignored);
            if (ignored.Count > 0)
                Warn("weft: these coverlet settings have no weft equivalent and are ignored: " +
                     string.Join(", ", ignored));
            _folder = Directory.CreateTempSubdirectory("weft-coverage-").FullName;
            _session = new Session(WeftTool.Find(PackagedWeft()), settings, Path.Combine(_folder, "data"), Warn);
            // A test assembly that cannot be measured is a warning while another can be.
            var failures = new List<WeftException>();
            int run = 0;
            foreach (string source in sources)
            {
                try
                {
                    _session.Weave(TestAssembly.Read(source), (run++).ToString());
                }
                catch (WeftException ex)
                {
                    failures.Add(ex);
                }
            }
            if (!_session.WoveAny && failures.Count == 1)
                throw failures[0];
            foreach (WeftException ex in failures)
                Warn(ex.Diagnostic.Replace(" error WEFT", " warning WEFT"));
            if (!_session.WoveAny)
                throw new WeftException(WeftException.NothingToMeasure,
                    "no test assembly of the run could be measured, so there is no coverage (see the warnings above)");
        }
        catch (Exception ex)
        {
            Fail(ex);
            _session?.Restore();
            _session = null;
            DeleteFolder();
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
            session.Restore();
            session.CheckHits();
            string reports = Path.Combine(_folder!, "reports") + Path.DirectorySeparatorChar;
            session.Report(reports);
            foreach (string report in Directory.GetFiles(reports))
                Attach(report);
        }
        catch (Exception ex)
        {
            Fail(ex);
        }
        finally
        {
            session.Restore();
            DeleteFolder();
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

    /// An error in the test run's output: coverage was asked for and is not there.
    private void Fail(Exception ex)
    {
        string line = ex is WeftException w ? w.Diagnostic
            : new WeftException(WeftException.NotMeasured, ex.Message).Diagnostic;
        if (_logger is not null && _context is not null)
            _logger.LogError(_context, line);
        else
            Console.Error.WriteLine(line);
    }

    private void DeleteFolder()
    {
        try
        {
            if (_folder is not null)
                Directory.Delete(_folder, true);
        }
        catch (Exception)
        {
            // A temporary folder left behind is no failure of the run.
        }
    }

    /// The weft executable of the package for this machine, two folders above this one
    /// (build/collector/ in the package: tools/linux-x64/weft, ...).
    private static string? PackagedWeft()
    {
        string? tools = WeftTool.ToolsFolderEntry();
        if (tools is null)
            return null;
        string here = Path.GetDirectoryName(typeof(WeftCoverageCollector).Assembly.Location)!;
        return Path.Combine(here, "..", "..", "tools", tools);
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
        _session?.Restore();
        _session = null;
        base.Dispose(disposing);
    }
}
