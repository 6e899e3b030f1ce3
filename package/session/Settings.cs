// What a coverage session is asked for, whichever front end read it: the VSTest data collector
// (run settings under coverlet.collector's names) or the Microsoft.Testing.Platform extension
// (its command-line options, named after coverlet.MTP's).
namespace Weft.Coverage;

internal sealed class Settings
{
    /// Report formats: cobertura, lcov, opencover, json (coverlet's); cobertura when none.
    public List<string> Formats { get; } = new();
    /// The coverage pass's options, each KEY=VALUE (include=..., exclude=..., skip-auto-props=true).
    public List<string> PassOptions { get; } = new();
    public bool IncludeTestAssembly { get; set; }
    /// coverlet's DeterministicReport: the sources keep the paths the PDBs give them.
    public bool DeterministicReport { get; set; }
    /// coverlet's Threshold, ThresholdType and ThresholdStat, as `weft coverage report` takes them.
    public string? Threshold { get; set; }
    public string? ThresholdType { get; set; }
    public string? ThresholdStat { get; set; }
    /// Folders of earlier runs' data (results folders or their weft-coverage folders).
    public List<string> MergeWith { get; } = new();
    /// A key pair to sign the woven copies with; without one they are written unsigned.
    public string? KeyFile { get; set; }

    public IEnumerable<string> FormatsOrDefault() =>
        Formats.Count == 0 ? new[] { "cobertura" } : Formats.Distinct();

    /// Adds KEY=ITEM for each item of a comma-separated \p value.
    public void AddPassOptions(string key, string value)
    {
        foreach (string item in List(value))
            PassOptions.Add($"{key}={item}");
    }

    /// The items of a comma-separated list, trimmed, without empty ones.
    public static IEnumerable<string> List(string value) =>
        value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);

    public static bool IsTrue(string value) => value.Trim().Equals("true", StringComparison.OrdinalIgnoreCase);
}
