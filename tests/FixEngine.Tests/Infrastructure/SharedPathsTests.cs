using System.IO;

namespace FixEngine.Tests.Infrastructure;

public class SharedPathsTests
{
    [Fact]
    public void FindsTheDictionariesInTheRepository()
    {
        Assert.True(File.Exists(SharedPaths.Dictionary("FIX42.xml")), SharedPaths.Dictionary("FIX42.xml"));
        Assert.True(File.Exists(Path.Combine(SharedPaths.Repository, "dictionaries", "LICENSE-quickfix.txt")));
    }

    [SharedFact]
    public void FindsTheAcceptanceRunnerBesideTheCheckout() =>
        Assert.True(File.Exists(Path.Combine(SharedPaths.FixAt, "run_at.py")), SharedPaths.FixAt);
}
