using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Reflection;

namespace Robota
{
    /// <summary>A tool's arguments did not fit its parameters; the message names the argument (the model sees it).</summary>
    public sealed class ToolArgumentException : ArgumentException
    {
        internal ToolArgumentException(string message) : base(message)
        {
        }
    }

    /// <summary>One argument of a typed tool: a method parameter or a property/field of an arguments class.</summary>
    internal sealed class ToolMember
    {
        internal string Name;
        internal Type Type;
        internal string Description;
        internal bool Optional;
        internal object Default;
        internal MemberInfo Member; // property or field (null for a parameter)

        internal void Set(object target, object value)
        {
            if (Member is PropertyInfo p) p.SetValue(target, value, null);
            else ((FieldInfo)Member).SetValue(target, value);
        }
    }

    /// <summary>
    /// JSON Schemas from .NET types and the arguments back, by read-only reflection (no Emit: IL2CPP-safe).
    /// <c>[Description]</c> and <c>[DefaultValue]</c> (System.ComponentModel) are read by name, so the
    /// binding references nothing but mscorlib.
    /// </summary>
    internal static class ToolSchema
    {
        private const int MaxDepth = 16;

        /// <summary>The <c>[Description]</c> text of a member, parameter or type (null when none).</summary>
        internal static string DescriptionOf(ICustomAttributeProvider p) => AttributeValue(p, "System.ComponentModel.DescriptionAttribute", "Description") as string;

        private static object AttributeValue(ICustomAttributeProvider p, string typeName, string property)
        {
            foreach (var a in p.GetCustomAttributes(true))
            {
                var t = a.GetType();
                if (t.FullName == typeName)
                {
                    return t.GetProperty(property)?.GetValue(a, null);
                }
            }
            return null;
        }

        private static bool HasAttribute(ICustomAttributeProvider p, string typeName)
        {
            foreach (var a in p.GetCustomAttributes(true))
            {
                if (a.GetType().FullName == typeName) return true;
            }
            return false;
        }

        /// <summary>The arguments of a class: public settable properties and public fields, camelCased.</summary>
        internal static List<ToolMember> MembersOf(Type t)
        {
            var list = new List<ToolMember>();
            foreach (var p in t.GetProperties(BindingFlags.Public | BindingFlags.Instance))
            {
                if (p.CanWrite && p.GetSetMethod() != null && p.GetIndexParameters().Length == 0)
                {
                    list.Add(Member(p, p.Name, p.PropertyType));
                }
            }
            foreach (var f in t.GetFields(BindingFlags.Public | BindingFlags.Instance))
            {
                if (!f.IsInitOnly)
                {
                    list.Add(Member(f, f.Name, f.FieldType));
                }
            }
            return list;
        }

        private static ToolMember Member(MemberInfo m, string name, Type type) => new ToolMember
        {
            Name = char.ToLowerInvariant(name[0]) + name.Substring(1),
            Type = type,
            Description = DescriptionOf(m),
            Optional = Nullable.GetUnderlyingType(type) != null || HasAttribute(m, "System.ComponentModel.DefaultValueAttribute"),
            Default = AttributeValue(m, "System.ComponentModel.DefaultValueAttribute", "Value"),
            Member = m,
        };

        /// <summary>A method parameter as an argument (optional when nullable or with a default value).</summary>
        internal static ToolMember Parameter(ParameterInfo p) => new ToolMember
        {
            Name = p.Name,
            Type = p.ParameterType,
            Description = DescriptionOf(p),
            Optional = p.IsOptional || Nullable.GetUnderlyingType(p.ParameterType) != null,
            Default = p.IsOptional ? p.DefaultValue : null,
        };

        /// <summary>The object schema of <paramref name="members"/>.</summary>
        internal static Dictionary<string, object> ObjectSchema(List<ToolMember> members, string path, int depth)
        {
            var props = new Dictionary<string, object>();
            var required = new List<object>();
            foreach (var m in members)
            {
                var s = Schema(m.Type, Join(path, m.Name), depth + 1);
                if (m.Description != null) s["description"] = m.Description;
                props[m.Name] = s;
                if (!m.Optional) required.Add(m.Name);
            }
            var d = new Dictionary<string, object> { { "type", "object" }, { "properties", props } };
            if (required.Count > 0) d["required"] = required;
            return d;
        }

        /// <summary>The schema of one value of type <paramref name="t"/>.</summary>
        internal static Dictionary<string, object> Schema(Type t, string path, int depth)
        {
            if (depth > MaxDepth)
            {
                throw new NotSupportedException("argument \"" + path + "\" nests deeper than " + MaxDepth + " levels (a type that contains itself?)");
            }
            t = Nullable.GetUnderlyingType(t) ?? t;
            if (t == typeof(string)) return Type("string");
            if (t == typeof(bool)) return Type("boolean");
            if (IsInteger(t)) return Type("integer");
            if (t == typeof(double) || t == typeof(float) || t == typeof(decimal)) return Type("number");
            if (t.IsEnum)
            {
                var s = Type("string");
                s["enum"] = new List<object>(Enum.GetNames(t));
                return s;
            }
            var elem = ElementType(t);
            if (elem != null)
            {
                var s = Type("array");
                s["items"] = Schema(elem, path + "[]", depth + 1);
                return s;
            }
            if ((t.IsClass || (t.IsValueType && !t.IsPrimitive)) && t != typeof(object) && !typeof(IDictionary).IsAssignableFrom(t) && !typeof(Delegate).IsAssignableFrom(t))
            {
                var s = ObjectSchema(MembersOf(t), path, depth);
                var desc = DescriptionOf(t);
                if (desc != null) s["description"] = desc;
                return s;
            }
            throw new NotSupportedException("argument \"" + path + "\" has type " + t.FullName + ", which has no JSON Schema here (use string, bool, a number, an enum, an array or list, or a class)");
        }

        private static Dictionary<string, object> Type(string name) => new Dictionary<string, object> { { "type", name } };

        private static string Join(string path, string name) => string.IsNullOrEmpty(path) ? name : path + "." + name;

        private static bool IsInteger(Type t) =>
            t == typeof(int) || t == typeof(long) || t == typeof(short) || t == typeof(sbyte) ||
            t == typeof(uint) || t == typeof(ulong) || t == typeof(ushort) || t == typeof(byte);

        /// <summary>The element type of an array or list type (null for anything else).</summary>
        private static Type ElementType(Type t)
        {
            if (t.IsArray) return t.GetElementType();
            if (t.IsGenericType && t != typeof(string))
            {
                var def = t.GetGenericTypeDefinition();
                if (def == typeof(List<>) || def == typeof(IList<>) || def == typeof(IEnumerable<>) || def == typeof(ICollection<>) ||
                    def == typeof(IReadOnlyList<>) || def == typeof(IReadOnlyCollection<>))
                {
                    return t.GetGenericArguments()[0];
                }
            }
            return null;
        }

        /// <summary>The arguments object's members as values for <paramref name="members"/>, in order.</summary>
        internal static object[] Bind(List<ToolMember> members, IDictionary<string, object> args, string path)
        {
            var values = new object[members.Count];
            for (var i = 0; i < members.Count; i++)
            {
                var m = members[i];
                object v;
                var at = Join(path, m.Name);
                if (!args.TryGetValue(m.Name, out v) || v == null)
                {
                    if (!m.Optional)
                    {
                        throw new ToolArgumentException(v == null && args.ContainsKey(m.Name)
                            ? "argument \"" + at + "\" must not be null"
                            : "missing required argument \"" + at + "\"");
                    }
                    values[i] = m.Default != null && m.Default != DBNull.Value ? m.Default : null;
                    continue;
                }
                values[i] = Convert(v, m.Type, at);
            }
            return values;
        }

        /// <summary>A parsed JSON value as a <paramref name="t"/>; the error names <paramref name="path"/>.</summary>
        internal static object Convert(object v, Type t, string path)
        {
            var under = Nullable.GetUnderlyingType(t);
            if (v == null)
            {
                if (under != null || !t.IsValueType) return null;
                throw new ToolArgumentException("argument \"" + path + "\" must not be null");
            }
            t = under ?? t;
            if (t == typeof(string))
            {
                return v as string ?? throw Wrong(path, "a string", v);
            }
            if (t == typeof(bool))
            {
                return v is bool b ? (object)b : throw Wrong(path, "a boolean", v);
            }
            if (IsInteger(t))
            {
                return Integer(v, t, path);
            }
            if (t == typeof(double) || t == typeof(float) || t == typeof(decimal))
            {
                double d;
                if (v is long l) d = l;
                else if (v is ulong u) d = u;
                else if (v is double x) d = x;
                else throw Wrong(path, "a number", v);
                return t == typeof(double) ? (object)d : t == typeof(float) ? (object)(float)d : (object)(decimal)d;
            }
            if (t.IsEnum)
            {
                var s = v as string ?? throw Wrong(path, "one of " + string.Join(", ", Enum.GetNames(t)), v);
                foreach (var name in Enum.GetNames(t))
                {
                    if (name == s) return Enum.Parse(t, name);
                }
                throw new ToolArgumentException("argument \"" + path + "\" must be one of " + string.Join(", ", Enum.GetNames(t)) + ", got \"" + s + "\"");
            }
            var elem = ElementType(t);
            if (elem != null)
            {
                var items = v as List<object> ?? throw Wrong(path, "an array", v);
                var arr = Array.CreateInstance(elem, items.Count);
                for (var i = 0; i < items.Count; i++)
                {
                    arr.SetValue(Convert(items[i], elem, path + "[" + i + "]"), i);
                }
                if (t.IsArray || t.IsInterface) return arr;
                var list = (IList)Activator.CreateInstance(t); // List<T>: the declared type itself
                foreach (var item in arr) list.Add(item);
                return list;
            }
            var obj = v as Dictionary<string, object> ?? throw Wrong(path, "an object", v);
            var members = MembersOf(t);
            var values = Bind(members, obj, path);
            var target = Activator.CreateInstance(t);
            for (var i = 0; i < members.Count; i++)
            {
                if (values[i] != null) members[i].Set(target, values[i]);
            }
            return target;
        }

        private static object Integer(object v, Type t, string path)
        {
            decimal n;
            if (v is long l) n = l;
            else if (v is ulong u) n = u;
            else if (v is double d)
            {
                if (double.IsNaN(d) || double.IsInfinity(d) || Math.Floor(d) != d || Math.Abs(d) > 7.9e28)
                {
                    throw new ToolArgumentException("argument \"" + path + "\" must be an integer, got " + d.ToString("R", CultureInfo.InvariantCulture));
                }
                n = (decimal)d;
            }
            else throw Wrong(path, "an integer", v);
            try
            {
                return System.Convert.ChangeType(n, t, CultureInfo.InvariantCulture);
            }
            catch (OverflowException)
            {
                throw new ToolArgumentException("argument \"" + path + "\" is out of range for " + t.Name + ": " + n.ToString(CultureInfo.InvariantCulture));
            }
        }

        private static ToolArgumentException Wrong(string path, string expected, object got) =>
            new ToolArgumentException("argument \"" + path + "\" must be " + expected + ", got " + Json.Serialize(got));
    }
}
