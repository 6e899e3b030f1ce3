// WeftCoverageFiles: the file steps around a coverage run, in one task (Weft.Tasks.csproj says why).
using Microsoft.Build.Framework;

namespace Weft.Tasks;

/// <summary>
/// The coverage targets' file work, in this order: the originals weave --keep-originals kept in
/// <see cref="KeptOriginals"/> moved back into <see cref="OutputFolder"/> (each a rename over the
/// woven file, so its time stamp is the original's), the folders of <see cref="Remove"/> deleted,
/// and <see cref="Create"/> made. What the Copy, Delete, RemoveDir and MakeDir tasks would do,
/// without their first use's cost in a build that runs each of them once.
/// </summary>
public sealed class WeftCoverageFiles : Microsoft.Build.Utilities.Task
{
    public string KeptOriginals { get; set; } = "";
    public string OutputFolder { get; set; } = "";
    public ITaskItem[] Remove { get; set; } = [];
    public string Create { get; set; } = "";
    /// <summary>How many originals were moved back.</summary>
    [Output] public int MovedBack { get; private set; }

    public override bool Execute()
    {
        try
        {
            MoveBack();
            foreach (var folder in Remove)
                if (Directory.Exists(folder.ItemSpec))
                    Directory.Delete(folder.ItemSpec, recursive: true);
            if (Create != "")
                Directory.CreateDirectory(Create);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Log.LogError(null, "WEFT0016", null, BuildEngine.ProjectFileOfTaskNode, 0, 0, 0, 0,
                "WeftCoverage: {0}", e.Message);
        }
        return !Log.HasLoggedErrors;
    }

    void MoveBack()
    {
        if (KeptOriginals == "" || !Directory.Exists(KeptOriginals))
            return;
        if (OutputFolder == "")
            throw new IOException($"the originals in '{KeptOriginals}' have no folder to go back to");
        foreach (var file in Directory.EnumerateFiles(KeptOriginals))
        {
            File.Move(file, Path.Combine(OutputFolder, Path.GetFileName(file)), overwrite: true);
            ++MovedBack;
        }
        Log.LogMessage(MessageImportance.Low, "weft: {0} original(s) moved back from {1} to {2}",
            MovedBack, KeptOriginals, OutputFolder);
    }
}
