// The few UnityEngine types the pump sample uses, so the test suite compiles and drives the
// MonoBehaviour sample under Mono the way Unity's player loop would (Start, Update per frame,
// OnDestroy). Not shipped in the package (Tests~ is ignored by Unity).
using System;

namespace UnityEngine
{
    public class Object
    {
    }

    public class Component : Object
    {
    }

    public class Behaviour : Component
    {
    }

    public class MonoBehaviour : Behaviour
    {
    }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class TooltipAttribute : Attribute
    {
        public TooltipAttribute(string tooltip)
        {
        }
    }

    public static class Debug
    {
        public static readonly System.Collections.Generic.List<string> Lines = new System.Collections.Generic.List<string>();

        public static void Log(object message)
        {
            lock (Lines) Lines.Add(message?.ToString());
        }

        public static void LogException(Exception e)
        {
            lock (Lines) Lines.Add("EXCEPTION " + e);
        }
    }
}
