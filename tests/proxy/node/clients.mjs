// Real node clients, every scenario in one process: reads {client, baseURL, names, tools,
// messages} as JSON on stdin, writes one JSON line per scenario on stdout:
// {name, calls: [{id, name, arguments}], text, error}. `arguments` is the client's own
// text of the arguments (JSON.stringify of its object for the ai SDK). What is right is
// decided in Python (tests/proxy/test_node_clients.py).
import OpenAI from "openai";
import { jsonSchema, streamText, tool } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const { client, baseURL, names, tools, messages } = input;
const apiKey = "sk-streamfix-test";

function errorText(error) {
  if (error === null || error === undefined) return null;
  const message = error?.message ?? error?.error?.message ?? error;
  return typeof message === "string" ? message : JSON.stringify(message);
}

// The openai package's own stream helper: chat.completions.stream() and its final
// completion, as the package's docs show for tool calls.
async function viaOpenAI(name) {
  const openai = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const stream = openai.chat.completions.stream({ model: name, messages, tools });
  for await (const _ of stream) {
    // read it all
  }
  const completion = await stream.finalChatCompletion();
  const message = completion.choices[0].message;
  const calls = (message.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.function.name,
    arguments: c.function.arguments,
  }));
  return { calls, text: message.content ?? "", error: null };
}

// The vercel ai SDK: streamText with tools (no execute), through @ai-sdk/openai-compatible.
async function viaAI(name) {
  const provider = createOpenAICompatible({ name: "streamfix", baseURL, apiKey });
  const declared = Object.fromEntries(
    tools.map((t) => [
      t.function.name,
      tool({ description: t.function.description, inputSchema: jsonSchema(t.function.parameters) }),
    ]),
  );
  const result = streamText({
    model: provider.chatModel(name),
    messages,
    tools: declared,
    maxRetries: 0,
    onError: () => {}, // reported below, from the stream's own error part
  });
  const calls = [];
  const errors = [];
  let text = "";
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") text += part.text ?? part.textDelta ?? "";
    else if (part.type === "tool-call") {
      if (part.invalid) errors.push(`invalid tool call ${part.toolName}: ${errorText(part.error)}`);
      calls.push({ id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input) });
    } else if (part.type === "error") errors.push(errorText(part.error));
  }
  return { calls, text, error: errors.length ? errors.join("; ") : null };
}

const run = client === "openai" ? viaOpenAI : viaAI;
for (const name of names) {
  let outcome;
  try {
    outcome = await run(name);
  } catch (error) {
    outcome = { calls: [], text: "", error: errorText(error) ?? String(error) };
  }
  process.stdout.write(JSON.stringify({ name, ...outcome }) + "\n");
}
