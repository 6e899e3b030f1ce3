// LINQ query syntax: where, let, orderby, group into, join into with DefaultIfEmpty, and
// conditions in the selections.

namespace Weft.BranchPatterns;

public static class Queries
{
    record Person(string Name, int Age, string City);

    public static int Run()
    {
        var people = new[] { new Person("a", 30, "x"), new Person("b", 17, "y"), new Person("c", 45, "x"), new Person("d", 70, "z") };
        var cities = new[] { ("x", 1), ("y", 2) };
        var adults = from p in people
                     where p.Age >= 18
                     let decade = p.Age / 10
                     orderby decade descending, p.Name
                     select new { p.Name, Old = decade > 5 ? "old" : "young" };
        var byCity = from p in people
                     group p by p.City into g
                     where g.Count() > 1 || g.Key == "z"
                     select g.Key + g.Count();
        var joined = from p in people
                     join c in cities on p.City equals c.Item1 into cs
                     from c in cs.DefaultIfEmpty()
                     select c.Item2 > 1 ? p.Name : c.Item1 ?? "none";
        int r = 0;
        foreach (var a in adults)
            r += a.Name.Length + a.Old.Length;
        r += byCity.Sum(s => s.Length) + joined.Count(s => s != "none");
        return r;
    }
}
