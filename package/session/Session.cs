// One coverage session: the assemblies under test of each test assembly woven in place with the
// coverage pass (the originals kept beside them), the hits the test host writes as it exits, the
// report made of them, the originals put back. Shared by the VSTest data collector and the
// Microsoft.Testing.Platform extension; the MSBuild targets do the same in MSBuild's terms.
namespace Weft.Coverage;

internal sealed class Session
{
    /// Where a run cut short left the originals, beside the assemblies it wove: the next session
    /// puts them back first.
    public const string OriginalsFolder = ".weft-originals";

    private readonly WeftTool _weft;
    private readonly Settings _settings;
    private readonly string _data;
    private readonly Action<string> _warn;
    private readonly List<(TestAssembly Test, string Folder, List<string> Woven)> _runs = new();
    private readonly List<(string Original, string Kept)> _kept = new();
    private bool _restored;

    /// A session whose maps and hits go under \p data, one folder a test assembly.
    public Session(WeftTool weft, Settings settings, string data, Action<string> warn)
    {
        _weft = weft;
        _settings = settings;
        _data = Path.GetFullPath(data);
        _warn = warn;
    }

    /// Whether anything was woven: a session that wove nothing has nothing to report.
    public bool WoveAny => _runs.Count > 0;

    /// Weaves the assemblies under test of \p test, their maps and hits going to the folder
    /// \p runName of the session's data (emptied first: what an earlier run left there is not this
    /// run's). A WeftException when there is nothing to measure (nothing is woven then) or the
    /// filters leave out every method (the originals are put back by Restore).
    public void Weave(TestAssembly test, string runName)
    {
        List<string> assemblies = test.AssembliesUnderTest(_settings.IncludeTestAssembly, _warn);
        if (assemblies.Count == 0)
            throw new WeftException(WeftException.NothingToMeasure,
                $"{Path.GetFileName(test.Path)} references no project whose assembly could be measured, " +
                "so there is no coverage");
        PutBackLeftovers(test.Folder);
        string folder = Path.Combine(_data, runName);
        if (Directory.Exists(folder))
            Directory.Delete(folder, true);
        Directory.CreateDirectory(folder);
        KeepOriginals(test.Folder, assemblies);
        _weft.Run(WeaveArguments(assemblies, folder));
        foreach (string dll in assemblies)
            File.Move(dll + ".coverage.json", Path.Combine(folder, Path.GetFileName(dll) + ".coverage.json"), true);
        if (!_settings.DeterministicReport && test.PathMap is not null)
            File.WriteAllText(Path.Combine(folder, "sources.path-map"), test.PathMap + "\n");
        // Filters that leave out every method measure nothing (weft says so: WEFT0012): said now,
        // before the tests run; the originals are put back with the others'.
        _weft.Run(new[] { "coverage", "report", "--data", folder, "--check" });
        _runs.Add((test, folder, assemblies.Select(a => Path.GetFileName(a)).ToList()));
    }

    private List<string> WeaveArguments(List<string> assemblies, string folder)
    {
        var args = new List<string> { "weave" };
        args.AddRange(assemblies);
        args.AddRange(new[] { "--in-place", "--force", "-q" });
        // The woven copies live for the test run: the runtime does not check strong names.
        if (_settings.KeyFile is not null)
            args.AddRange(new[] { "--key", _settings.KeyFile });
        else
            args.Add("--unsigned");
        string pass = $"coverage:hits-file={Path.Combine(folder, "{assembly}.weft-hits")}";
        foreach (string option in _settings.PassOptions)
            pass += "," + option;
        args.AddRange(new[] { "--pass", pass });
        return args;
    }

    /// Copies the assemblies and their PDBs into the originals folder beside them.
    private void KeepOriginals(string folder, List<string> assemblies)
    {
        string kept = Directory.CreateDirectory(Path.Combine(folder, OriginalsFolder)).FullName;
        foreach (string dll in assemblies)
            foreach (string file in new[] { dll, Path.ChangeExtension(dll, ".pdb") })
                if (File.Exists(file))
                {
                    string copy = Path.Combine(kept, Path.GetFileName(file));
                    File.Copy(file, copy, true);
                    _kept.Add((file, copy));
                }
    }

    /// The originals a session cut short (killed) left in \p folder's originals folder, back in
    /// their place.
    private void PutBackLeftovers(string folder)
    {
        string kept = Path.Combine(folder, OriginalsFolder);
        if (!Directory.Exists(kept))
            return;
        foreach (string copy in Directory.GetFiles(kept))
            File.Copy(copy, Path.Combine(folder, Path.GetFileName(copy)), true);
        Directory.Delete(kept, true);
    }

    /// A WeftException naming each test assembly whose run wrote no hits: its assemblies under
    /// test were never loaded by a test host that exited, so nothing ran or nothing was counted.
    public void CheckHits()
    {
        var silent = _runs.Where(r => !Directory.EnumerateFiles(r.Folder, "*.weft-hits").Any()).ToList();
        if (silent.Count == 0)
            return;
        string which = string.Join("; ", silent.Select(r =>
            $"{Path.GetFileName(r.Test.Path)} (measuring {string.Join(", ", r.Woven)})"));
        throw new WeftException(WeftException.NoHits,
            $"the tests wrote no hits: {which}: no test host that loaded an assembly under test " +
            "exited (did any test run? a test host stopped before it exits writes none)");
    }

    /// The report of everything in the session's data folder and in \p mergeWith's, in each
    /// format, written to \p output (a file for one format; a folder ending in '/' or a prefix for
    /// several); returns weft's one-line summary ("coverage report: PATH (lines ...)").
    public string Report(string output)
    {
        var args = new List<string> { "coverage", "report", "--data", _data };
        foreach (string merge in _settings.MergeWith)
        {
            string full = Path.GetFullPath(merge);
            string inside = Path.Combine(full, "weft-coverage");
            args.AddRange(new[] { "--data", Directory.Exists(inside) ? inside : full });
        }
        args.AddRange(new[] { "--format", string.Join(",", _settings.FormatsOrDefault()), "-o", output, "--summary" });
        if (!string.IsNullOrEmpty(_settings.Threshold))
        {
            args.AddRange(new[] { "--threshold", _settings.Threshold });
            if (!string.IsNullOrEmpty(_settings.ThresholdType))
                args.AddRange(new[] { "--threshold-type", _settings.ThresholdType });
            if (!string.IsNullOrEmpty(_settings.ThresholdStat))
                args.AddRange(new[] { "--threshold-stat", _settings.ThresholdStat });
        }
        return _weft.Run(args).Trim();
    }

    /// The original assemblies back in place (once; failures are warnings).
    public void Restore()
    {
        if (_restored)
            return;
        _restored = true;
        var folders = new HashSet<string>();
        foreach (var (original, kept) in _kept)
        {
            try
            {
                File.Copy(kept, original, true);
                File.Delete(kept);
                folders.Add(Path.GetDirectoryName(kept)!);
            }
            catch (Exception ex)
            {
                _warn($"weft: could not put {original} back ({ex.Message}); it is in {kept}");
            }
        }
        foreach (string folder in folders)
            if (!Directory.EnumerateFileSystemEntries(folder).Any())
                Directory.Delete(folder);
    }
}
