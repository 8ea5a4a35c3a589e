using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;
using System.Text.RegularExpressions;

namespace Robota.Tests
{
    internal static class EventKindTests
    {
        /// <summary>
        /// The header's event names in the binding's convention: upper snake case to Pascal case,
        /// each word capitalized and the rest lower case (TEXT_DELTA → TextDelta, HOST_IO → HostIo).
        /// </summary>
        private static string PascalCase(string upperSnake)
        {
            var b = new StringBuilder();
            foreach (var w in upperSnake.Split('_'))
            {
                b.Append(w.Substring(0, 1)).Append(w.Substring(1).ToLowerInvariant());
            }
            return b.ToString();
        }

        /// <summary>Every <c>#define ROBOTA_EVENT_NAME n</c> of include/robota.h (the tests run from target/csharp).</summary>
        private static Dictionary<string, uint> HeaderKinds()
        {
            var path = Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "..", "..", "include", "robota.h");
            var kinds = new Dictionary<string, uint>();
            foreach (Match m in Regex.Matches(File.ReadAllText(path), @"^#define ROBOTA_EVENT_([A-Z0-9_]+)\s+(\d+)\s*$", RegexOptions.Multiline))
            {
                kinds.Add(m.Groups[1].Value, uint.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture));
            }
            Expect.True(kinds.Count >= 20, "the header defines at least 20 event kinds (found " + kinds.Count + ")");
            return kinds;
        }

        /// <summary>
        /// EventKind is exactly the header's event kinds (name and number), and the binding maps
        /// each number and pull-mode "type" name to it: a kind added to the header fails this test
        /// until the binding knows it.
        /// </summary>
        [Test]
        private static void EventKindMatchesTheHeader()
        {
            var header = HeaderKinds();
            var want = header.Select(kv => PascalCase(kv.Key) + "=" + kv.Value).OrderBy(s => s, StringComparer.Ordinal).ToList();
            var have = Enum.GetValues(typeof(EventKind)).Cast<EventKind>().Where(k => k != EventKind.Unknown)
                .Select(k => k + "=" + (uint)k).OrderBy(s => s, StringComparer.Ordinal).ToList();
            Expect.Equal(string.Join(", ", want), string.Join(", ", have), "EventKind members (name=number) vs ROBOTA_EVENT_* of include/robota.h");

            var kindOf = typeof(RobotaEvent).GetMethod("KindOf", BindingFlags.NonPublic | BindingFlags.Static);
            Expect.True(kindOf != null, "RobotaEvent.KindOf exists");
            foreach (var kv in header)
            {
                var ev = (RobotaEvent)Activator.CreateInstance(typeof(RobotaEvent), BindingFlags.NonPublic | BindingFlags.Instance, null,
                    new object[] { kv.Value, 1UL, "{}" }, CultureInfo.InvariantCulture);
                Expect.Equal(PascalCase(kv.Key), ev.Kind.ToString(), "kind " + kv.Value + " of a delivered event");
                var type = kv.Key.ToLowerInvariant();
                Expect.Equal(kv.Value, (uint)kindOf.Invoke(null, new object[] { type }), "the kind of pull-mode type \"" + type + "\"");
            }
        }
    }
}
