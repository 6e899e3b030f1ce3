// The collector's settings, from the run settings' <Configuration> element under
// coverlet.collector's names.
using System.Xml;
using Weft.Coverage;

namespace Weft.Collector;

internal static class RunSettings
{
    /// The settings \p configuration gives; \p ignored receives the names weft has no use for.
    public static Settings Read(XmlElement? configuration, List<string> ignored)
    {
        var s = new Settings();
        if (configuration is null)
            return s;
        foreach (XmlNode node in configuration.ChildNodes)
        {
            if (node is not XmlElement e)
                continue;
            string value = e.InnerText.Trim();
            switch (e.Name)
            {
                case "Format": s.Formats.AddRange(Settings.List(value)); break;
                case "Include": s.AddPassOptions("include", value); break;
                case "Exclude": s.AddPassOptions("exclude", value); break;
                case "ExcludeByAttribute": s.AddPassOptions("exclude-by-attribute", value); break;
                case "ExcludeByFile": s.AddPassOptions("exclude-by-file", value); break;
                case "SkipAutoProps":
                    if (Settings.IsTrue(value))
                        s.PassOptions.Add("skip-auto-props=true");
                    break;
                case "IncludeTestAssembly": s.IncludeTestAssembly = Settings.IsTrue(value); break;
                case "DeterministicReport": s.DeterministicReport = Settings.IsTrue(value); break;
                case "Framework": break; // VSTest's own: the test run's target framework
                default: ignored.Add(e.Name); break;
            }
        }
        foreach (string f in s.Formats)
            if (f != "cobertura" && f != "lcov" && f != "opencover" && f != "json")
                throw new WeftException(WeftException.NotMeasured, $"the report format '{f}' is none of cobertura, lcov, opencover and json");
        return s;
    }
}
