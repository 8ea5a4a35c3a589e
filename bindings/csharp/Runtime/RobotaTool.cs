using System;
using System.Collections.Generic;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>
    /// A host tool made from a typed .NET method or arguments class: the JSON Schema comes from the
    /// parameter / property types (string, bool, integers, floating numbers, enums as string enums,
    /// arrays and lists, nested classes; <c>Nullable&lt;T&gt;</c>, a parameter default or
    /// <c>[DefaultValue]</c> = optional; <c>[Description]</c> = description) and the model's
    /// arguments are converted back before the call. An integer argument accepts <c>19.0</c>; a
    /// wrong argument fails the call with a message naming it (<see cref="ToolArgumentException"/>),
    /// which the model sees. Register with <see cref="RobotaRuntime.AddTool(RobotaTool)"/>.
    /// </summary>
    public sealed class RobotaTool
    {
        private readonly Func<ToolCall, Task<object>> handler;

        private RobotaTool(ToolDefinition definition, Func<ToolCall, Task<object>> handler)
        {
            Definition = definition;
            this.handler = handler;
        }

        /// <summary>The definition sent to the library (name, description, derived schema).</summary>
        public ToolDefinition Definition { get; }

        internal Func<ToolCall, Task<object>> Handler => handler;

        /// <summary>
        /// A tool whose arguments are the properties of <typeparamref name="TArgs"/> (a class with a
        /// public parameterless constructor; property names camelCased: <c>City</c> is <c>"city"</c>).
        /// </summary>
        public static RobotaTool Create<TArgs>(string name, string description, Func<TArgs, CancellationToken, Task<string>> handler)
            where TArgs : class, new()
        {
            if (handler == null) throw new ArgumentNullException(nameof(handler));
            var members = ToolSchema.MembersOf(typeof(TArgs));
            var schema = ToolSchema.ObjectSchema(members, string.Empty, 0);
            var def = new ToolDefinition(Check(name), description ?? ToolSchema.DescriptionOf(typeof(TArgs)) ?? string.Empty, Json.Serialize(schema));
            return new RobotaTool(def, call =>
            {
                var args = (TArgs)ToolSchema.Convert(Arguments(call), typeof(TArgs), string.Empty);
                return Boxed(handler(args, call.CancellationToken));
            });
        }

        /// <summary>
        /// A tool calling <paramref name="method"/> (a lambda or method group cast to a delegate type):
        /// each parameter is an argument of the same name, except a <see cref="CancellationToken"/>
        /// (the call's token) and a <see cref="ToolCall"/> (the call). The return value is the result
        /// (a string as is, other values as JSON; <c>Task</c>/<c>Task&lt;T&gt;</c> awaited).
        /// <paramref name="name"/> and <paramref name="description"/> default to the method's name
        /// and <c>[Description]</c>.
        /// </summary>
        public static RobotaTool FromMethod(Delegate method, string name = null, string description = null)
        {
            if (method == null) throw new ArgumentNullException(nameof(method));
            var info = method.Method;
            var parameters = info.GetParameters();
            var members = new List<ToolMember>();
            foreach (var p in parameters)
            {
                if (p.ParameterType != typeof(CancellationToken) && p.ParameterType != typeof(ToolCall))
                {
                    members.Add(ToolSchema.Parameter(p));
                }
            }
            var schema = ToolSchema.ObjectSchema(members, string.Empty, 0);
            var def = new ToolDefinition(Check(name ?? info.Name), description ?? ToolSchema.DescriptionOf(info) ?? string.Empty, Json.Serialize(schema));
            return new RobotaTool(def, call =>
            {
                var values = ToolSchema.Bind(members, Arguments(call), string.Empty);
                var args = new object[parameters.Length];
                for (int i = 0, j = 0; i < parameters.Length; i++)
                {
                    var t = parameters[i].ParameterType;
                    args[i] = t == typeof(CancellationToken) ? call.CancellationToken : t == typeof(ToolCall) ? (object)call : values[j++];
                }
                object ret;
                try
                {
                    ret = method.DynamicInvoke(args);
                }
                catch (TargetInvocationException e) when (e.InnerException != null)
                {
                    return Failed(e.InnerException);
                }
                return Result(ret, info.ReturnType);
            });
        }

        private static string Check(string name) =>
            string.IsNullOrEmpty(name) ? throw new ArgumentException("a tool needs a name", nameof(name)) : name;

        private static Dictionary<string, object> Arguments(ToolCall call)
        {
            object parsed;
            try
            {
                parsed = Json.Parse(call.ArgumentsJson);
            }
            catch (FormatException e)
            {
                throw new ToolArgumentException("the arguments are not valid JSON: " + e.Message);
            }
            return parsed as Dictionary<string, object> ?? throw new ToolArgumentException("the arguments must be a JSON object, got " + call.ArgumentsJson);
        }

        private static Task<object> Boxed(Task<string> task) =>
            task == null
                ? Failed(new InvalidOperationException("the tool handler returned a null Task"))
                : task.ContinueWith(t => (object)t.GetAwaiter().GetResult(), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);

        private static Task<object> Failed(Exception e)
        {
            var tcs = new TaskCompletionSource<object>();
            tcs.SetException(e);
            return tcs.Task;
        }

        /// <summary>The call's result from the method's return value (a Task's result once it ended).</summary>
        private static Task<object> Result(object ret, Type returnType)
        {
            var task = ret as Task;
            if (task == null)
            {
                return Task.FromResult(returnType == typeof(void) ? (object)string.Empty : ret);
            }
            var resultProperty = returnType.IsGenericType ? returnType.GetProperty("Result") : null;
            return task.ContinueWith(
                t =>
                {
                    t.GetAwaiter().GetResult(); // the method's failure or cancellation
                    return resultProperty == null ? string.Empty : resultProperty.GetValue(t, null);
                },
                CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously,
                TaskScheduler.Default);
        }
    }
}
