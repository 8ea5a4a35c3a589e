// A host provider for a model the game runs itself, one token at a time (LLamaSharp's executor,
// a Unity Sentis/Barracuda decode loop): sessions on it run the whole agent loop (tools,
// permissions, history) with no model server. In pump delivery Stream() runs inside
// session.Dispatch() and Step() in Update(): every token is decoded on the main thread.
using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using Robota;

/// <summary>A local model: the tokens it generates for a prompt, produced one per MoveNext.</summary>
public interface ITokenModel
{
    IEnumerator<string> Generate(string prompt, int maxTokens);
}

/// <summary>
/// Adapts an <see cref="ITokenModel"/> to <see cref="IModelProvider"/>: the request becomes a
/// ChatML prompt (tools listed in the system part), each token a text delta, and a
/// <c>&lt;tool_call&gt;{"name":…,"arguments":{…}}&lt;/tool_call&gt;</c> block (the Hermes/Qwen convention
/// of local chat models) a tool call.
/// </summary>
public sealed class TokenLoopProvider : IModelProvider
{
    private const string Open = "<tool_call>", Close = "</tool_call>";
    private readonly ITokenModel model;
    private readonly int tokensPerStep;
    private readonly List<Generation> running = new List<Generation>();
    private int calls;

    public TokenLoopProvider(ITokenModel model, int tokensPerStep = 4)
    {
        this.model = model;
        this.tokensPerStep = tokensPerStep;
    }

    /// <summary>Generations in progress.</summary>
    public int Running => running.Count;

    /// <summary>Starts a generation; it advances in <see cref="Step"/>.</summary>
    public void Stream(ModelRequest request, IModelStream stream, CancellationToken cancellationToken)
    {
        var tokens = model.Generate(Prompt(request), request.MaxTokens ?? 512);
        running.Add(new Generation { Tokens = tokens, Stream = stream, Cancel = cancellationToken });
    }

    /// <summary>Call once per frame: decodes up to tokensPerStep tokens of each generation on this thread.</summary>
    public void Step()
    {
        for (var i = running.Count - 1; i >= 0; i--)
        {
            var g = running[i];
            bool over;
            try
            {
                over = g.Cancel.IsCancellationRequested || Advance(g);
            }
            catch (Exception e)
            {
                // A malformed tool block, or a push the library refused (the call ended with it).
                g.Stream.Fail(ModelErrorClass.Provider, e.Message);
                over = true;
            }
            if (over)
            {
                g.Tokens.Dispose();
                running.RemoveAt(i);
            }
        }
    }

    /// <summary>Feeds tokens to the call; true when the generation is over.</summary>
    private bool Advance(Generation g)
    {
        for (var n = 0; n < tokensPerStep; n++)
        {
            if (!g.Tokens.MoveNext())
            {
                if (g.Pending.Length > 0) g.Stream.Text(g.Pending.ToString());
                g.Stream.Done();
                return true;
            }
            g.Pending.Append(g.Tokens.Current);
            var text = g.Pending.ToString();
            var open = text.IndexOf(Open, StringComparison.Ordinal);
            if (open < 0)
            {
                // Hold back what may be the start of a tag, send the rest.
                var keep = PartialTag(text);
                if (keep < text.Length) g.Stream.Text(text.Substring(0, text.Length - keep));
                g.Pending.Remove(0, text.Length - keep);
                continue;
            }
            if (open > 0)
            {
                g.Stream.Text(text.Substring(0, open));
            }
            var close = text.IndexOf(Close, open, StringComparison.Ordinal);
            g.Pending.Remove(0, open);
            if (close < 0)
            {
                continue;
            }
            var call = Json.ParseObject(text.Substring(open + Open.Length, close - open - Open.Length));
            object args;
            call.TryGetValue("arguments", out args);
            g.Stream.ToolCall("call_" + (++calls), Json.GetString(call, "name"), Json.Serialize(args ?? new Dictionary<string, object>()));
            g.Pending.Remove(0, close + Close.Length - open);
        }
        return false;
    }

    private static int PartialTag(string text)
    {
        for (var k = Math.Min(Open.Length - 1, text.Length); k > 0; k--)
        {
            if (Open.StartsWith(text.Substring(text.Length - k), StringComparison.Ordinal)) return k;
        }
        return 0;
    }

    /// <summary>The ChatML prompt of a request: tools in the system part, tool results as "tool" turns.</summary>
    public static string Prompt(ModelRequest request)
    {
        var sb = new StringBuilder();
        var system = new StringBuilder();
        foreach (var t in request.Tools)
        {
            system.Append("Tool ").Append(t.Name).Append(": ").Append(t.Description).Append(' ').Append(t.InputSchemaJson).Append('\n');
        }
        foreach (var m in request.Messages)
        {
            if (m.Role == "system")
            {
                system.Insert(0, m.Text + "\n");
                continue;
            }
            sb.Append("<|im_start|>").Append(m.Role).Append('\n').Append(m.Text);
            foreach (var c in m.ToolCalls)
            {
                sb.Append(Open).Append("{\"name\":\"").Append(c.Name).Append("\",\"arguments\":").Append(c.ArgumentsJson).Append('}').Append(Close);
            }
            sb.Append("<|im_end|>\n");
        }
        if (system.Length > 0)
        {
            sb.Insert(0, "<|im_start|>system\n" + system + "<|im_end|>\n");
        }
        return sb.Append("<|im_start|>assistant\n").ToString();
    }

    private sealed class Generation
    {
        internal IEnumerator<string> Tokens;
        internal IModelStream Stream;
        internal CancellationToken Cancel;
        internal readonly StringBuilder Pending = new StringBuilder();
    }
}
