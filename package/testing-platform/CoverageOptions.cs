// weft's command-line options in a Microsoft.Testing.Platform test application, named after
// coverlet.MTP's (--coverlet... becomes --weft-coverage...), and what they ask for as Settings.
using Microsoft.Testing.Platform.CommandLine;
using Microsoft.Testing.Platform.Extensions;
using Microsoft.Testing.Platform.Extensions.CommandLine;
using Weft.Coverage;

namespace Weft.TestingPlatform;

internal sealed class CoverageOptions : ICommandLineOptionsProvider
{
    public const string Coverage = "weft-coverage";
    public const string Output = "weft-coverage-output";
    public const string OutputFormat = "weft-coverage-output-format";
    public const string Directory = "weft-coverage-directory";
    public const string Include = "weft-coverage-include";
    public const string Exclude = "weft-coverage-exclude";
    public const string ExcludeByAttribute = "weft-coverage-exclude-by-attribute";
    public const string ExcludeByFile = "weft-coverage-exclude-by-file";
    public const string IncludeTestAssembly = "weft-coverage-include-test-assembly";
    public const string SkipAutoProps = "weft-coverage-skip-auto-props";
    public const string DeterministicReport = "weft-coverage-deterministic-report";
    public const string Threshold = "weft-coverage-threshold";
    public const string ThresholdType = "weft-coverage-threshold-type";
    public const string ThresholdStat = "weft-coverage-threshold-stat";
    public const string MergeWith = "weft-coverage-merge-with";
    public const string KeyFile = "weft-coverage-key-file";

    private static readonly string[] Formats = { "cobertura", "lcov", "opencover", "json" };

    public string Uid => nameof(CoverageOptions);
    public string Version => typeof(CoverageOptions).Assembly.GetName().Version?.ToString() ?? "0";
    public string DisplayName => "weft coverage";
    public string Description => "Line and branch coverage of the assemblies under test, woven by weft";
    public Task<bool> IsEnabledAsync() => Task.FromResult(true);

    public IReadOnlyCollection<CommandLineOption> GetCommandLineOptions() => new CommandLineOption[]
    {
        new(Coverage, "Measure the coverage of the test project's project references (woven by weft before the tests run).", ArgumentArity.Zero, false),
        new(Output, "Where the report goes: a file (one format), a folder ending in '/' or a prefix (several). Default: coverage.cobertura.xml (...) in the results folder.", ArgumentArity.ExactlyOne, false),
        new(OutputFormat, "cobertura (default), lcov, opencover or json (coverlet's); repeatable or comma-separated.", ArgumentArity.OneOrMore, false),
        new(Directory, "The folder of the report and of the maps and hits it is made of (default: the test run's results folder); test applications sharing it share one report.", ArgumentArity.ExactlyOne, false),
        new(Include, "[Assembly]Type filters of what is measured (repeatable or comma-separated).", ArgumentArity.OneOrMore, false),
        new(Exclude, "[Assembly]Type filters of what is not measured (repeatable or comma-separated).", ArgumentArity.OneOrMore, false),
        new(ExcludeByAttribute, "Attributes whose types and methods are not measured (repeatable or comma-separated; default: GeneratedCodeAttribute, CompilerGeneratedAttribute, as coverlet.MTP).", ArgumentArity.OneOrMore, false),
        new(ExcludeByFile, "Source file globs whose methods are not measured (repeatable or comma-separated).", ArgumentArity.OneOrMore, false),
        new(IncludeTestAssembly, "Measure the test assembly too.", ArgumentArity.Zero, false),
        new(SkipAutoProps, "Do not measure auto-implemented properties.", ArgumentArity.Zero, false),
        new(DeterministicReport, "Name sources as a deterministic build's PDBs name them (/_/...).", ArgumentArity.Zero, false),
        new(Threshold, "Fail the run when coverage is below this percentage (one, or one per threshold type: 80,70,90).", ArgumentArity.ExactlyOne, false),
        new(ThresholdType, "line, branch, method (default: all three); repeatable or comma-separated.", ArgumentArity.OneOrMore, false),
        new(ThresholdStat, "minimum (default), total or average.", ArgumentArity.ExactlyOne, false),
        new(MergeWith, "Results folders (or their weft-coverage folders) of earlier runs whose data joins the report.", ArgumentArity.OneOrMore, false),
        new(KeyFile, "Strong-name sign the woven copies with this key pair (default: written unsigned, which the runtime does not check).", ArgumentArity.ExactlyOne, false),
    };

    public Task<ValidationResult> ValidateOptionArgumentsAsync(CommandLineOption option, string[] arguments)
    {
        if (option.Name == OutputFormat)
            foreach (string f in arguments.SelectMany(Settings.List))
                if (!Formats.Contains(f))
                    return ValidationResult.InvalidTask($"--{OutputFormat}: '{f}' is none of {string.Join(", ", Formats)}");
        if (option.Name == ThresholdStat && !new[] { "minimum", "total", "average" }.Contains(arguments[0].ToLowerInvariant()))
            return ValidationResult.InvalidTask($"--{ThresholdStat}: '{arguments[0]}' is none of minimum, total and average");
        if (option.Name == ThresholdType)
            foreach (string t in arguments.SelectMany(Settings.List))
                if (t != "line" && t != "branch" && t != "method")
                    return ValidationResult.InvalidTask($"--{ThresholdType}: '{t}' is none of line, branch and method");
        return ValidationResult.ValidTask;
    }

    public Task<ValidationResult> ValidateCommandLineOptionsAsync(ICommandLineOptions options)
    {
        if (options.IsOptionSet(Coverage))
            return ValidationResult.ValidTask;
        foreach (CommandLineOption o in GetCommandLineOptions())
            if (o.Name != Coverage && options.IsOptionSet(o.Name))
                return ValidationResult.InvalidTask($"--{o.Name} has no effect without --{Coverage}");
        return ValidationResult.ValidTask;
    }

    /// The attributes left out when --weft-coverage-exclude-by-attribute is not given.
    public static readonly string[] DefaultExcludedAttributes = { "GeneratedCodeAttribute", "CompilerGeneratedAttribute" };

    /// The settings the options of a run with --weft-coverage ask for.
    public static Settings Read(ICommandLineOptions options)
    {
        var s = new Settings();
        foreach (string f in All(options, OutputFormat))
            s.Formats.Add(f);
        foreach (var (option, key) in new[] { (Include, "include"), (Exclude, "exclude"),
                     (ExcludeByAttribute, "exclude-by-attribute"), (ExcludeByFile, "exclude-by-file") })
            foreach (string item in All(options, option))
                s.PassOptions.Add($"{key}={item}");
        // coverlet.MTP's branch rules (a later coverlet's than coverlet.msbuild's).
        s.PassOptions.Add("coverlet-rules=10.1");
        // coverlet.MTP's default, which an explicit list replaces: what the compiler or a code
        // generator wrote is not measured (ExcludeFromCodeCoverage always counts).
        if (!options.IsOptionSet(ExcludeByAttribute))
            foreach (string attribute in DefaultExcludedAttributes)
                s.PassOptions.Add($"exclude-by-attribute={attribute}");
        if (options.IsOptionSet(SkipAutoProps))
            s.PassOptions.Add("skip-auto-props=true");
        s.IncludeTestAssembly = options.IsOptionSet(IncludeTestAssembly);
        s.DeterministicReport = options.IsOptionSet(DeterministicReport);
        s.Threshold = One(options, Threshold);
        string types = string.Join(",", All(options, ThresholdType));
        s.ThresholdType = types.Length > 0 ? types : null;
        s.ThresholdStat = One(options, ThresholdStat);
        s.MergeWith.AddRange(All(options, MergeWith));
        s.KeyFile = One(options, KeyFile);
        return s;
    }

    /// Every value of a repeatable option, each split at commas.
    private static IEnumerable<string> All(ICommandLineOptions options, string name) =>
        options.TryGetOptionArgumentList(name, out string[]? values) ? values.SelectMany(Settings.List) : Array.Empty<string>();

    public static string? One(ICommandLineOptions options, string name) =>
        options.TryGetOptionArgumentList(name, out string[]? values) && values.Length > 0 ? values[0] : null;
}
