// The run with --weft-coverage, in the test application's controller process (the platform
// starts the tests in a test host process of their own when a controller extension is enabled):
// before the test host starts, the assemblies under test are woven in place; the test host writes
// its hits as it exits; then the originals are put back and the report is made, and the run says
// where it is, or fails saying why there is none.
using System.Reflection;
using System.Security.Cryptography;
using System.Text;
using Microsoft.Testing.Platform.CommandLine;
using Microsoft.Testing.Platform.Configurations;
using Microsoft.Testing.Platform.Extensions;
using Microsoft.Testing.Platform.Extensions.Messages;
using Microsoft.Testing.Platform.Extensions.OutputDevice;
using Microsoft.Testing.Platform.Extensions.TestHostControllers;
using Microsoft.Testing.Platform.Messages;
using Microsoft.Testing.Platform.OutputDevice;
using Weft.Coverage;

namespace Weft.TestingPlatform;

internal sealed class CoverageController : ITestHostProcessLifetimeHandler, ITestHostEnvironmentVariableProvider,
    IOutputDeviceDataProducer, IDataProducer
{
    private readonly ICommandLineOptions _options;
    private readonly IConfiguration _configuration;
    private readonly IOutputDevice _output;
    private readonly IMessageBus _messages;
    private Session? _session;
    private Settings? _settings;
    private string? _report;

    public CoverageController(ICommandLineOptions options, IConfiguration configuration, IOutputDevice output,
        IMessageBus messages)
    {
        _options = options;
        _configuration = configuration;
        _output = output;
        _messages = messages;
    }

    /// The reports, as the run's artifacts: dotnet test lists them with the run's other files.
    public Type[] DataTypesProduced => new[] { typeof(FileArtifact) };

    public string Uid => nameof(CoverageController);
    public string Version => typeof(CoverageController).Assembly.GetName().Version?.ToString() ?? "0";
    public string DisplayName => "weft coverage";
    public string Description => "Weaves the assemblies under test before the test host starts and reports their coverage after it exits";

    public Task<bool> IsEnabledAsync() => Task.FromResult(_options.IsOptionSet(CoverageOptions.Coverage));

    /// The hits go where the woven assemblies say, whatever WEFT_COVERAGE_FILE the tests would
    /// inherit (an empty value is no value to them).
    public Task UpdateAsync(IEnvironmentVariables variables)
    {
        variables.SetVariable(new EnvironmentVariable("WEFT_COVERAGE_FILE", "", false, true));
        return Task.CompletedTask;
    }

    public Task<ValidationResult> ValidateTestHostEnvironmentVariablesAsync(IReadOnlyEnvironmentVariables variables) =>
        ValidationResult.ValidTask;

    public async Task BeforeTestHostProcessStartAsync(CancellationToken cancellation)
    {
        try
        {
            string entry = Assembly.GetEntryAssembly()?.Location
                ?? throw new WeftException(WeftException.NotMeasured, "the test application's assembly is not known");
            TestAssembly test = TestAssembly.Read(entry);
            _settings = CoverageOptions.Read(_options);
            string folder = Folder();
            _report = CoverageOptions.One(_options, CoverageOptions.Output) ?? folder + Path.DirectorySeparatorChar;
            _session = new Session(WeftTool.Find(test.Weft), _settings, Path.Combine(folder, "weft-coverage"), Warn);
            _session.Weave(test, RunName(test.Path));
        }
        catch (Exception ex)
        {
            _session?.Restore();
            _session = null;
            await Fail(ex);
        }
    }

    public Task OnTestHostProcessStartedAsync(ITestHostProcessInformation host, CancellationToken cancellation) =>
        Task.CompletedTask;

    public async Task OnTestHostProcessExitedAsync(ITestHostProcessInformation host, CancellationToken cancellation)
    {
        Session? session = _session;
        _session = null;
        if (session is null)
            return;
        try
        {
            // The originals back first: Fail ends the process.
            session.Restore();
            session.CheckHits();
            string summary = session.Report(_report!);
            await _output.DisplayAsync(this, new TextOutputDeviceData("weft: " + summary), CancellationToken.None);
            foreach (string file in ReportFiles.Of(_report!, _settings!.FormatsOrDefault()))
                await _messages.PublishAsync(this, new FileArtifact(new FileInfo(file), "weft coverage report",
                    "Line and branch coverage of the assemblies under test"));
        }
        catch (Exception ex)
        {
            session.Restore();
            await Fail(ex);
        }
    }

    /// The folder of the report and its data: --weft-coverage-directory, else the run's results
    /// folder.
    private string Folder()
    {
        string? chosen = CoverageOptions.One(_options, CoverageOptions.Directory);
        return Path.GetFullPath(chosen ?? _configuration.GetTestResultDirectory());
    }

    /// The folder of this test application's maps and hits in the data folder: its name, and its
    /// path's digest (two test projects of one name, in two places, share a results folder).
    private static string RunName(string testAssembly)
    {
        byte[] digest = SHA256.HashData(Encoding.UTF8.GetBytes(testAssembly));
        return $"{Path.GetFileNameWithoutExtension(testAssembly)}-{Convert.ToHexString(digest, 0, 4).ToLowerInvariant()}";
    }

    private void Warn(string message) =>
        _output.DisplayAsync(this, new WarningMessageOutputDeviceData(message), CancellationToken.None)
            .GetAwaiter().GetResult();

    /// Says why there is no coverage, then ends the run with exit code 1: coverage was asked for.
    /// (An extension has no other way to fail the run; an exception would take the process down
    /// with a stack trace.) On standard error, which dotnet test shows with the exit code.
    private static Task Fail(Exception ex)
    {
        string line = ex is WeftException w ? w.Diagnostic
            : new WeftException(WeftException.NotMeasured, ex.Message).Diagnostic;
        Console.Error.WriteLine(line);
        Console.Error.Flush();
        Environment.Exit(1);
        return Task.CompletedTask;
    }
}
