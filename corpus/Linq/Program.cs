// LINQ: query syntax (from/where/select/let/orderby/group/join/into), method syntax,
// grouping, inner/group/left joins, ordering with ThenBy/descending, set operations,
// aggregation, partitioning, zip/chunk, lazy evaluation, custom extension operators,
// and expression trees (IQueryable over an in-memory source, compiled expressions).
// Every result is ordered explicitly or follows a documented stable order.
using System.Linq.Expressions;

namespace Weft.Corpus.Linq;

public sealed record Department(int Id, string Name, string Floor);
public sealed record Employee(int Id, string Name, int DeptId, decimal Salary, int Year, string[] Skills);
public sealed record Order(int Id, int EmployeeId, string Product, int Quantity, decimal UnitPrice);

public static class Extensions
{
    public static IEnumerable<TResult> Pairwise<T, TResult>(this IEnumerable<T> source, Func<T, T, TResult> f)
    {
        using var e = source.GetEnumerator();
        if (!e.MoveNext()) yield break;
        var prev = e.Current;
        while (e.MoveNext())
        {
            yield return f(prev, e.Current);
            prev = e.Current;
        }
    }

    public static decimal Median(this IEnumerable<decimal> source)
    {
        var sorted = source.OrderBy(x => x).ToArray();
        if (sorted.Length == 0) throw new InvalidOperationException("empty");
        int mid = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}

public static class Program
{
    static readonly Department[] Departments =
    {
        new(1, "Engineering", "3"), new(2, "Sales", "1"), new(3, "Research", "4"), new(4, "Legal", "2"),
    };

    static readonly Employee[] Employees =
    {
        new(1, "Alice", 1, 9500m, 2015, new[] { "csharp", "sql" }),
        new(2, "Bob", 2, 6100m, 2018, new[] { "excel" }),
        new(3, "Carol", 1, 11200m, 2012, new[] { "csharp", "cpp", "rust" }),
        new(4, "Dan", 3, 8800m, 2020, new[] { "python", "sql" }),
        new(5, "Eve", 1, 7300m, 2021, new[] { "csharp" }),
        new(6, "Frank", 2, 5900m, 2016, new string[0]),
        new(7, "Grace", 3, 12500m, 2010, new[] { "python", "cpp" }),
        new(8, "Heidi", 5, 4000m, 2022, new[] { "sql" }), // department 5 does not exist
        new(9, "Ivan", 1, 9500m, 2019, new[] { "rust", "cpp" }),
    };

    static readonly Order[] Orders =
    {
        new(100, 2, "laptop", 3, 1200m), new(101, 2, "mouse", 10, 25m), new(102, 6, "laptop", 1, 1150m),
        new(103, 1, "monitor", 2, 300m), new(104, 6, "desk", 4, 450m), new(105, 2, "desk", 1, 430m),
        new(106, 9, "keyboard", 5, 80m), new(107, 4, "laptop", 2, 1250m), new(108, 6, "mouse", 7, 22m),
    };

    static void Main()
    {
        Console.WriteLine("== query syntax ==");
        var seniors =
            from e in Employees
            where e.Year < 2017
            let years = 2025 - e.Year
            orderby years descending, e.Name
            select e.Name + "(" + years + "y)";
        Console.WriteLine("seniors: " + string.Join(", ", seniors));

        var byDept =
            from e in Employees
            join d in Departments on e.DeptId equals d.Id
            group e by d.Name into g
            orderby g.Key
            select new { Dept = g.Key, Count = g.Count(), Total = g.Sum(x => x.Salary), Top = g.OrderByDescending(x => x.Salary).ThenBy(x => x.Name).First().Name };
        foreach (var g in byDept) Console.WriteLine($"  {g.Dept}: count={g.Count} total={g.Total} top={g.Top}");

        var leftJoin =
            from e in Employees
            join d in Departments on e.DeptId equals d.Id into ds
            from d in ds.DefaultIfEmpty()
            orderby e.Id
            select e.Name + "@" + (d?.Name ?? "none");
        Console.WriteLine("left join: " + string.Join(" ", leftJoin));

        var groupJoin =
            from d in Departments
            join e in Employees on d.Id equals e.DeptId into staff
            orderby d.Id
            select d.Name + "[" + string.Join(",", staff.Select(s => s.Name)) + "]";
        Console.WriteLine("group join: " + string.Join(" ", groupJoin));

        var skills =
            from e in Employees
            from s in e.Skills
            group e.Name by s into g
            orderby g.Count() descending, g.Key
            select g.Key + ":" + g.Count();
        Console.WriteLine("skills: " + string.Join(" ", skills));

        var sales =
            from o in Orders
            join e in Employees on o.EmployeeId equals e.Id
            let total = o.Quantity * o.UnitPrice
            where total > 100
            orderby total descending, o.Id
            select $"{o.Id}:{e.Name}:{o.Product}={total}";
        Console.WriteLine("big orders: " + string.Join(" ", sales));

        Console.WriteLine("== method syntax ==");
        Console.WriteLine("count=" + Employees.Count() + " any>12000=" + Employees.Any(e => e.Salary > 12000) + " all>3000=" + Employees.All(e => e.Salary > 3000));
        Console.WriteLine("sum=" + Employees.Sum(e => e.Salary) + " avg=" + Employees.Average(e => e.Salary).ToString("0.00") + " min=" + Employees.Min(e => e.Salary) + " max=" + Employees.Max(e => e.Salary));
        Console.WriteLine("median=" + Employees.Select(e => e.Salary).Median());
        Console.WriteLine("MaxBy=" + Employees.MaxBy(e => e.Salary).Name + " MinBy=" + Employees.MinBy(e => e.Year).Name);
        Console.WriteLine("ordered: " + string.Join(",", Employees.OrderBy(e => e.DeptId).ThenByDescending(e => e.Salary).ThenBy(e => e.Id).Select(e => e.Id)));
        Console.WriteLine("skip/take: " + string.Join(",", Employees.OrderBy(e => e.Name).Skip(2).Take(3).Select(e => e.Name)));
        Console.WriteLine("takewhile/skipwhile: " + string.Join(",", Enumerable.Range(1, 20).TakeWhile(i => i * i < 50)) + " | " + string.Join(",", Enumerable.Range(1, 10).SkipWhile(i => i < 7)));
        Console.WriteLine("distinct: " + string.Join(",", Employees.SelectMany(e => e.Skills).Distinct().OrderBy(s => s, StringComparer.Ordinal)));
        Console.WriteLine("distinctBy: " + string.Join(",", Employees.DistinctBy(e => e.DeptId).Select(e => e.Name)));
        var a = new[] { 1, 2, 3, 4, 5, 6 };
        var b = new[] { 4, 5, 6, 7, 8 };
        Console.WriteLine("union=" + string.Join(",", a.Union(b)) + " intersect=" + string.Join(",", a.Intersect(b)) + " except=" + string.Join(",", a.Except(b)) + " concat count=" + a.Concat(b).Count());
        Console.WriteLine("zip=" + string.Join(",", a.Zip(b, (x, y) => x * y)) + " zip3=" + string.Join(",", a.Zip(b, a.Reverse()).Select(t => t.First + t.Second + t.Third)));
        Console.WriteLine("chunk=" + string.Join(" ", Enumerable.Range(1, 10).Chunk(3).Select(c => "[" + string.Join(",", c) + "]")));
        Console.WriteLine("aggregate=" + Enumerable.Range(1, 10).Aggregate(1L, (acc, i) => acc * i) + " fold string=" + new[] { "a", "b", "c" }.Aggregate("", (acc, s) => s + acc));
        Console.WriteLine("pairwise=" + string.Join(",", new[] { 1, 4, 9, 16, 25 }.Pairwise((x, y) => y - x)));
        Console.WriteLine("select index=" + string.Join(",", "weft".Select((c, i) => c + "" + i)));
        Console.WriteLine("sequence equal=" + a.SequenceEqual(new[] { 1, 2, 3, 4, 5, 6 }) + " first odd >3=" + a.First(i => i > 3 && i % 2 == 1) + " last or default=" + a.LastOrDefault(i => i > 100, -1));
        Console.WriteLine("ToLookup: " + string.Join(" ", Employees.ToLookup(e => e.Year / 10 * 10).OrderBy(g => g.Key).Select(g => g.Key + "s=" + g.Count())));
        var dict = Employees.ToDictionary(e => e.Id, e => e.Name);
        Console.WriteLine("dict[7]=" + dict[7] + " keys sorted=" + string.Join(",", dict.Keys.OrderByDescending(k => k)));
        Console.WriteLine("countBy: " + string.Join(" ", Orders.CountBy(o => o.Product).OrderBy(kv => kv.Key, StringComparer.Ordinal).Select(kv => kv.Key + "=" + kv.Value)));
        Console.WriteLine("aggregateBy: " + string.Join(" ", Orders.AggregateBy(o => o.EmployeeId, 0m, (acc, o) => acc + o.Quantity * o.UnitPrice).OrderBy(kv => kv.Key).Select(kv => kv.Key + "=" + kv.Value)));
        Console.WriteLine("index: " + string.Join(" ", Employees.Where(e => e.DeptId == 1).Index().Select(t => t.Index + ":" + t.Item.Name)));

        Console.WriteLine("== lazy evaluation ==");
        int evaluated = 0;
        var lazy = Enumerable.Range(1, 1000).Select(i => { evaluated++; return i * 3; }).Where(i => i % 2 == 0);
        Console.WriteLine("before enumerate evaluated=" + evaluated);
        var firstThree = lazy.Take(3).ToList();
        Console.WriteLine("first three=" + string.Join(",", firstThree) + " evaluated=" + evaluated);
        var list = new List<int> { 1, 2, 3 };
        var deferred = list.Select(i => i * 10);
        list.Add(4);
        Console.WriteLine("deferred sees later add: " + string.Join(",", deferred));

        Console.WriteLine("== expression trees ==");
        var queryable = Employees.AsQueryable();
        var q = queryable.Where(e => e.Salary >= 9000m && e.Skills.Contains("cpp")).OrderBy(e => e.Name).Select(e => e.Name.ToUpper());
        Console.WriteLine("queryable: " + string.Join(",", q));
        Console.WriteLine("expression: " + q.Expression.NodeType + " type=" + q.ElementType.Name);
        Expression<Func<int, int, int>> expr = (x, y) => x * y + 7;
        Console.WriteLine("expr body=" + expr.Body + " params=" + string.Join(",", expr.Parameters.Select(p => p.Name)));
        var compiled = expr.Compile();
        Console.WriteLine("compiled(6,7)=" + compiled(6, 7));
        var param = Expression.Parameter(typeof(int), "n");
        var body = Expression.Condition(
            Expression.GreaterThan(param, Expression.Constant(10)),
            Expression.Multiply(param, Expression.Constant(2)),
            Expression.Negate(param));
        var built = Expression.Lambda<Func<int, int>>(body, param).Compile();
        Console.WriteLine("built: " + body + " -> " + built(3) + "," + built(30));
        Expression<Func<Employee, string>> memberExpr = e => e.Name;
        Console.WriteLine("member: " + ((MemberExpression)memberExpr.Body).Member.Name + " on " + ((MemberExpression)memberExpr.Body).Member.DeclaringType.Name);
        Console.WriteLine("done");
    }
}
