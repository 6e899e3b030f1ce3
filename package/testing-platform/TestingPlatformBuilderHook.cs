// What the package registers (MSBuild item TestingPlatformBuilderHook): the test application's
// generated entry point calls AddExtensions, which adds weft's options and, for a run with
// --weft-coverage, the controller that weaves before the test host starts and reports after it
// exits.
using Microsoft.Testing.Platform.Builder;
using Microsoft.Testing.Platform.Extensions;
using Microsoft.Testing.Platform.Services;

namespace Weft.TestingPlatform;

public static class TestingPlatformBuilderHook
{
    public static void AddExtensions(ITestApplicationBuilder builder, string[] _)
    {
        builder.CommandLine.AddProvider(() => new CoverageOptions());
        var controller = new CompositeExtensionFactory<CoverageController>(services =>
            new CoverageController(services.GetCommandLineOptions(), services.GetConfiguration(),
                services.GetOutputDevice(), services.GetMessageBus()));
        builder.TestHostControllers.AddEnvironmentVariableProvider(controller);
        builder.TestHostControllers.AddProcessLifetimeHandler(controller);
    }
}
