// What the Weft package's targets wrote beside a test assembly when it was built, in
// NAME.weft-coverage.txt: the weft that build used, the assemblies under test (the test project's
// project references) and the build's path map, one KEY=VALUE a line:
//
//   weft=/home/me/.nuget/packages/weft/0.1.0/tools/linux-x64/weft
//   covered=Greeter.dll
//   path-map=/src/=/_/
namespace Weft.Coverage;

internal sealed class TestAssembly
{
    public string Path { get; }
    public string Folder { get; }
    public string? Weft { get; private set; }
    public List<string> Covered { get; } = new();
    public string? PathMap { get; private set; }

    private TestAssembly(string path)
    {
        Path = System.IO.Path.GetFullPath(path);
        Folder = System.IO.Path.GetDirectoryName(Path)!;
    }

    public static string FactsFile(string testAssembly) =>
        System.IO.Path.ChangeExtension(testAssembly, ".weft-coverage.txt");

    /// The test assembly at \p path and what its build wrote beside it; an error when the build
    /// wrote nothing (the project does not reference the package, or was built before it did).
    public static TestAssembly Read(string path)
    {
        var t = new TestAssembly(path);
        string facts = FactsFile(t.Path);
        if (!File.Exists(facts))
            throw new WeftException(WeftException.NothingToMeasure,
                $"{t.Path} was not built with the Weft package (there is no " +
                $"{System.IO.Path.GetFileName(facts)} beside it): reference the package in its " +
                "project and build it again");
        foreach (string line in File.ReadAllLines(facts))
        {
            int eq = line.IndexOf('=');
            if (line.StartsWith('#') || eq < 0)
                continue;
            string key = line[..eq].Trim(), value = line[(eq + 1)..].Trim();
            if (value.Length == 0)
                continue;
            switch (key)
            {
                case "weft": t.Weft = value; break;
                case "covered": t.Covered.Add(value); break;
                case "path-map": t.PathMap = value; break;
            }
        }
        return t;
    }

    /// The files to weave: the assemblies under test that are there (each one missing is a
    /// warning) and, when asked, the test assembly itself.
    public List<string> AssembliesUnderTest(bool includeTestAssembly, Action<string> warn)
    {
        var found = new List<string>();
        foreach (string name in Covered)
        {
            string file = System.IO.Path.Combine(Folder, name);
            if (File.Exists(file))
                found.Add(file);
            else
                warn($"weft: {file} is not there to be measured");
        }
        if (includeTestAssembly)
            found.Add(Path);
        return found.Distinct().ToList();
    }
}
