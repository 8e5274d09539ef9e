// Package demo is `rewind demo`'s built-in scripted model. It serves an
// OpenAI-compatible chat completions endpoint in-process (soul/llm/llmtest's
// server on 127.0.0.1) and points a real soul/llm Provider at it, so the
// demo exercises the same streaming, tool-call, approval, checkpoint,
// compaction and D-Mail code as a real model. No key, no network.
//
// The script answers by the state of the conversation it is sent (the last
// real user message and the tool results after it): a markdown answer with
// a fenced code block, a tool round trip (WriteFile → approval → ReadFile),
// a summary when it receives the compaction prompt, and a model-initiated
// backtrack (a failed attempt, SendDMail to the step's checkpoint, a better
// answer). Anything else gets a friendly reply saying what to try. The
// workspace tells it who answered an approval (Model.Answered), so the tool
// round trip's table says whether you or a watcher did, or nobody was asked.
package demo
