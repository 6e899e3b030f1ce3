// The files `weft coverage report -o OUTPUT --format F,...` writes, by its rules: a folder (OUTPUT
// ending in a separator, or a folder that exists) gets coverlet's names; one format writes
// OUTPUT itself; several write OUTPUT.EXT each.
namespace Weft.Coverage;

internal static class ReportFiles
{
    public static string Extension(string format) => format switch
    {
        "lcov" => "info",
        "opencover" => "opencover.xml",
        "json" => "json",
        _ => "cobertura.xml",
    };

    /// The reports of \p formats written to \p output, those that are there.
    public static IEnumerable<string> Of(string output, IEnumerable<string> formats)
    {
        List<string> list = formats.ToList();
        bool folder = output.EndsWith('/') || output.EndsWith(Path.DirectorySeparatorChar) || Directory.Exists(output);
        foreach (string f in list)
        {
            string file = folder ? Path.Combine(output, "coverage." + Extension(f))
                : list.Count == 1 ? output : output + "." + Extension(f);
            if (File.Exists(file))
                yield return Path.GetFullPath(file);
        }
    }
}
