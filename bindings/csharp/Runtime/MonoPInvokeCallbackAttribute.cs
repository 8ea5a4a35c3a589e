// IL2CPP (Unity's ahead-of-time compiler) only allows reverse P/Invoke into static methods
// marked [MonoPInvokeCallback]. Unity ships the attribute in UnityEngine (namespace AOT); outside
// Unity (Mono, .NET) this definition stands in so the same source compiles everywhere.
#if !UNITY_5_3_OR_NEWER
namespace AOT
{
    using System;

    /// <summary>Marks a static method that native code calls back (IL2CPP reverse P/Invoke).</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        /// <summary>Creates the attribute for a callback of delegate type <paramref name="type"/>.</summary>
        public MonoPInvokeCallbackAttribute(Type type)
        {
            Type = type;
        }

        /// <summary>The delegate type of the callback.</summary>
        public Type Type { get; }
    }
}
#endif
