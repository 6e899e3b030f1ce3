// The text of an argument the span pass records (option `arguments`) that is not a string or a
// primitive, made when the span starts, as the profiler's tracepoints write a value
// (runtime-profiler/Recorder.cpp): an enum by name; an array as its type and length; another
// object as JSON, its type and, to `depth` levels, its instance fields (strings and enum names
// quoted, primitives as numbers, nested objects the same way, other structs "<value>"), within
// 4,096 characters: each field gets an equal share of what is left, a string that does not fit
// ends in "...", fields left out are counted in a last member "...": N, and braces are always
// closed.
using System;
using System.Collections.Concurrent;
using System.Globalization;
using System.Reflection;
using System.Text;

namespace Weft.Otlp
{
    internal static class ValueText
    {
        const int Limit = 4096, MinValue = 40, CutReserve = 16;

        static readonly ConcurrentDictionary<Type, FieldInfo[]> FieldsOf = new ConcurrentDictionary<Type, FieldInfo[]>();

        public static string Format(object value, int depth)
        {
            if (value == null)
                return null;
            if (value is Enum)
                return EnumName(value);
            var sb = new StringBuilder();
            Object(sb, value, depth, Limit);
            return sb.ToString();
        }

        static string EnumName(object value) =>
            Enum.IsDefined(value.GetType(), value) ? value.ToString()
                : Convert.ToInt64(value, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture);

        static void Object(StringBuilder sb, object value, int depth, int limit)
        {
            if (value == null)
            {
                sb.Append("null");
                return;
            }
            Type t = value.GetType();
            if (value is string s)
            {
                JsonString(sb, s, limit);
                return;
            }
            if (Primitive(sb, value))
                return;
            if (value is Enum)
            {
                JsonString(sb, EnumName(value), limit);
                return;
            }
            if (value is Array a)
            {
                string length = ",\"length\":" + a.Length.ToString(CultureInfo.InvariantCulture) + "}";
                sb.Append("{\"type\":");
                JsonString(sb, TypeName(t), limit - length.Length);
                sb.Append(length);
                return;
            }
            FieldInfo[] fields = depth > 0 ? Fields(t) : Array.Empty<FieldInfo>();
            sb.Append("{\"type\":");
            JsonString(sb, TypeName(t), limit - 1 - (fields.Length > 0 ? CutReserve : 0));
            if (fields.Length > 0)
                FieldsText(sb, value, fields, depth, limit - 1);
            sb.Append('}');
        }

        static void FieldsText(StringBuilder sb, object value, FieldInfo[] fields, int depth, int limit)
        {
            if (sb.Length + 11 + MinValue + CutReserve > limit)
            {
                sb.Append(",\"...\":").Append(fields.Length);
                return;
            }
            sb.Append(",\"fields\":{");
            int inner = limit - 1;
            for (int i = 0; i < fields.Length; i++)
            {
                int mark = sb.Length;
                if (i > 0)
                    sb.Append(',');
                JsonString(sb, fields[i].Name, int.MaxValue);
                sb.Append(':');
                int left = fields.Length - i;
                if (sb.Length + MinValue + CutReserve > inner)
                {
                    sb.Length = mark;
                    sb.Append(i > 0 ? ",\"...\":" : "\"...\":").Append(left);
                    break;
                }
                int room = inner - CutReserve - sb.Length;
                Field(sb, fields[i], value, depth - 1, sb.Length + Math.Max(MinValue, room / left));
            }
            sb.Append('}');
        }

        static void Field(StringBuilder sb, FieldInfo f, object owner, int depth, int limit)
        {
            object v;
            try
            {
                v = f.GetValue(owner);
            }
            catch
            {
                sb.Append("\"<value>\"");
                return;
            }
            Type ft = f.FieldType;
            if (ft.IsValueType && !ft.IsPrimitive && !ft.IsEnum)
                sb.Append("\"<value>\"");
            else
                Object(sb, v, depth, limit);
        }

        static FieldInfo[] Fields(Type t) =>
            FieldsOf.GetOrAdd(t, type =>
            {
                var all = new System.Collections.Generic.List<FieldInfo>();
                // The most derived type's fields last, as the runtime lays them out.
                var chain = new System.Collections.Generic.List<Type>();
                for (Type c = type; c != null && c != typeof(object); c = c.BaseType)
                    chain.Insert(0, c);
                foreach (Type c in chain)
                    all.AddRange(c.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic |
                                             BindingFlags.DeclaredOnly));
                return all.ToArray();
            });

        static bool Primitive(StringBuilder sb, object v)
        {
            switch (v)
            {
                case bool b: sb.Append(b ? "true" : "false"); return true;
                case char c: sb.Append((int)c); return true;
                case sbyte n: sb.Append(n); return true;
                case byte n: sb.Append(n); return true;
                case short n: sb.Append(n); return true;
                case ushort n: sb.Append(n); return true;
                case int n: sb.Append(n); return true;
                case uint n: sb.Append(n); return true;
                case long n: sb.Append(n); return true;
                case ulong n: sb.Append(n); return true;
                case float n: sb.Append(n.ToString("R", CultureInfo.InvariantCulture)); return true;
                case double n: sb.Append(n.ToString("R", CultureInfo.InvariantCulture)); return true;
                case IntPtr n: sb.Append(n.ToInt64()); return true;
                case UIntPtr n: sb.Append(n.ToUInt64()); return true;
                default: return false;
            }
        }

        /// A type's name as the runtime's metadata gives it (Namespace.Outer+Inner, generic
        /// arguments left out).
        static string TypeName(Type t) => t.IsArray ? TypeName(t.GetElementType()) + "[]" : (t.FullName ?? t.Name).Split('[')[0];

        /// \p s as a JSON string within \p limit characters (quotes included): cut, it ends in
        /// "..."; unpaired surrogates become U+FFFD.
        static void JsonString(StringBuilder sb, string s, int limit)
        {
            int start = sb.Length;
            sb.Append('"');
            for (int i = 0; i < s.Length; i++)
            {
                char c = s[i];
                int mark = sb.Length;
                if (char.IsHighSurrogate(c) && i + 1 < s.Length && char.IsLowSurrogate(s[i + 1]))
                {
                    sb.Append(c).Append(s[++i]);
                }
                else if (char.IsSurrogate(c))
                    sb.Append('\uFFFD');
                else if (c == '"' || c == '\\')
                    sb.Append('\\').Append(c);
                else if (c < 0x20)
                    sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                else
                    sb.Append(c);
                if (sb.Length - start + 1 > limit)
                {
                    sb.Length = mark;
                    while (sb.Length - start + 4 > limit && sb.Length > start + 1)
                        sb.Length--;
                    sb.Append("...");
                    break;
                }
            }
            sb.Append('"');
        }
    }
}
