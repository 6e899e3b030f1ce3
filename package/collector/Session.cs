// One test session's coverage: what was woven, where the originals and the hits are, the report.
using System.Diagnostics;
using System.Xml;

namespace Weft.Collector;

/// The collector's settings, from the run settings' <Configuration> element under coverlet's names.
internal sealed class Settings
{
    public List<string> Formats { get; } = new();
    public List<string> PassOptions { get; } = new();
    public bool IncludeTestAssembly { get; private set; }
    /// coverlet's DeterministicReport: the sources keep the paths the PDBs give them.
    public bool DeterministicReport { get; private set; }
    public List<string> Ignored { get; } = new();

    public static Settings Read(XmlElement? configuration)
    {
        var s = new Settings();
        if (configuration is null)
            return s.WithDefaults();
        foreach (XmlNode node in configuration.ChildNodes)
        {
            if (node is not XmlElement e)
                continue;
            string value = e.InnerText.Trim();
            switch (e.Name)
            {
                case "Format":
                    s.Formats.AddRange(List(value));
                    break;
                case "Include":
                    s.AddOptions("include", value);
                    break;
                case "Exclude":
                    s.AddOptions("exclude", value);
                    break;
                case "ExcludeByAttribute":
                    s.AddOptions("exclude-by-attribute", value);
                    break;
                case "ExcludeByFile":
                    s.AddOptions("exclude-by-file", value);
                    break;
                case "SkipAutoProps":
                    if (value.Equals("true", StringComparison.OrdinalIgnoreCase))
                        s.PassOptions.Add("skip-auto-props=true");
                    break;
                case "IncludeTestAssembly":
                    s.IncludeTestAssembly = value.Equals("true", StringComparison.OrdinalIgnoreCase);
                    break;
                case "DeterministicReport":
                    s.DeterministicReport = value.Equals("true", StringComparison.OrdinalIgnoreCase);
                    break;
                default:
                    s.Ignored.Add(e.Name);
                    break;
            }
        }
        return s.WithDefaults();
    }

    private Settings WithDefaults()
    {
        if (Formats.Count == 0)
            Formats.Add("cobertura");
        return this;
    }

    private void AddOptions(string key, string value)
    {
        foreach (string item in List(value))
            PassOptions.Add($"{key}={item}");
    }

    private static IEnumerable<string> List(string value) =>
        value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
}

internal sealed class Session
{
    private readonly string _weft;
    private readonly string _root;  // private to this user (0700)
    private readonly string _data;  // maps and hits
    private readonly Settings _settings;
    private readonly List<(string Original, string Kept)> _kept = new();
    private bool _restored;

    private Session(string weft, Settings settings)
    {
        _weft = weft;
        _settings = settings;
        _root = Directory.CreateTempSubdirectory("weft-coverage-").FullName;
        _data = Directory.CreateDirectory(Path.Combine(_root, "data")).FullName;
    }

    /// Weaves the assemblies under test of each test assembly in \p sources; warns about those it
    /// cannot measure.
    public static Session Start(string weft, IEnumerable<string> sources, Settings settings,
        Action<string> warn)
    {
        var session = new Session(weft, settings);
        if (settings.Ignored.Count > 0)
            warn("weft: these coverlet settings have no weft equivalent and are ignored: " +
                 string.Join(", ", settings.Ignored));
        int run = 0;
        try
        {
            foreach (string source in sources)
                session.Weave(Path.GetFullPath(source), run++, warn);
        }
        catch
        {
            session.Restore(warn);
            throw;
        }
        return session;
    }

    /// The assemblies the package's targets listed beside the test assembly (and the test
    /// assembly itself with IncludeTestAssembly).
    private static List<string> AssembliesUnderTest(string testAssembly, Settings settings,
        Action<string> warn)
    {
        string dir = Path.GetDirectoryName(testAssembly)!;
        string list = Path.Combine(dir, Path.GetFileNameWithoutExtension(testAssembly) + ".weft-covered.txt");
        var found = new List<string>();
        if (!File.Exists(list))
        {
            warn($"weft: {testAssembly} was not built with the Weft package's targets (there is no " +
                 $"{Path.GetFileName(list)} beside it): nothing of it is measured");
            return found;
        }
        foreach (string line in File.ReadAllLines(list))
        {
            string name = line.Trim();
            if (name.Length == 0)
                continue;
            string path = Path.Combine(dir, name);
            if (File.Exists(path))
                found.Add(path);
            else
                warn($"weft: {path} is not there to be measured");
        }
        if (settings.IncludeTestAssembly)
            found.Add(testAssembly);
        return found.Distinct().ToList();
    }

    private void Weave(string testAssembly, int run, Action<string> warn)
    {
        List<string> assemblies = AssembliesUnderTest(testAssembly, _settings, warn);
        if (assemblies.Count == 0)
            return;
        string kept = Directory.CreateDirectory(Path.Combine(_root, "originals", run.ToString())).FullName;
        foreach (string dll in assemblies)
            foreach (string file in new[] { dll, Path.ChangeExtension(dll, ".pdb") })
                if (File.Exists(file))
                {
                    string copy = Path.Combine(kept, Path.GetFileName(file));
                    File.Copy(file, copy, true);
                    _kept.Add((file, copy));
                }
        var args = new List<string> { "weave" };
        args.AddRange(assemblies);
        args.AddRange(new[] { "--in-place", "--force", "-q", "--pass" });
        string pass = $"coverage:hits-file={Path.Combine(_data, run + "-{assembly}.weft-hits")}";
        foreach (string option in _settings.PassOptions)
            pass += "," + option;
        args.Add(pass);
        Run(args);
        foreach (string dll in assemblies)
        {
            string map = dll + ".coverage.json";
            File.Move(map, Path.Combine(_data, $"{run}-{Path.GetFileName(map)}"), true);
        }
        // The build's path map, which the package's targets wrote beside the test assembly: the
        // report names the sources where they are (weft coverage report reads *.path-map).
        string pathMap = Path.ChangeExtension(testAssembly, ".weft-path-map.txt");
        if (!_settings.DeterministicReport && File.Exists(pathMap))
            File.Copy(pathMap, Path.Combine(_data, $"{run}-sources.path-map"), true);
    }

    /// The reports of the session's hits, one per format; none if the tests wrote no hits.
    public List<string> Finish()
    {
        var reports = new List<string>();
        if (_kept.Count == 0)
            return reports;
        if (!Directory.EnumerateFiles(_data, "*.weft-hits").Any())
            throw new InvalidOperationException("the tests wrote no hits (did they run?)");
        string output = Directory.CreateDirectory(Path.Combine(_root, "reports")).FullName;
        foreach (string format in _settings.Formats.Distinct())
        {
            string name = format switch
            {
                "cobertura" => "coverage.cobertura.xml",
                "lcov" => "coverage.info",
                _ => throw new InvalidOperationException(
                    $"the report format '{format}' is none of cobertura and lcov"),
            };
            string report = Path.Combine(output, name);
            Run(new List<string> { "coverage", "report", "--data", _data, "--format", format, "-o", report });
            reports.Add(report);
        }
        return reports;
    }

    /// The original assemblies back in place, and the session's folder gone.
    public void Restore(Action<string> warn)
    {
        if (_restored)
            return;
        _restored = true;
        foreach (var (original, kept) in _kept)
        {
            try
            {
                File.Copy(kept, original, true);
            }
            catch (Exception ex)
            {
                warn($"weft: could not put {original} back ({ex.Message}); rebuild to get it back");
            }
        }
        try
        {
            Directory.Delete(_root, true);
        }
        catch (Exception)
        {
            // A temporary folder left behind is no failure of the run.
        }
    }

    private void Run(List<string> args)
    {
        var start = new ProcessStartInfo(_weft)
        {
            RedirectStandardError = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        foreach (string a in args)
            start.ArgumentList.Add(a);
        using var process = Process.Start(start)
            ?? throw new InvalidOperationException($"cannot start {_weft}");
        var stdout = process.StandardOutput.ReadToEndAsync();
        string stderr = process.StandardError.ReadToEnd();
        process.WaitForExit();
        stdout.Wait();
        if (process.ExitCode != 0)
            throw new InvalidOperationException(
                $"weft {args[0]} failed (exit code {process.ExitCode}): {stderr.Trim()}");
    }
}
