package message

import (
	"encoding/json"
	"testing"
)

// TestMarkersRoundTrip: every constructor is recognised as its marker with
// its payload, also after the JSON round trip the store does.
func TestMarkersRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m       Message
		kind    Marker
		payload string
	}{
		{Checkpoint(12), MarkerCheckpoint, "12"},
		{Compaction("## Focus\nthe parser"), MarkerCompaction, "## Focus\nthe parser"},
		{Truncation("server said no", 7, 3), MarkerTruncation, "Previous context has been compacted by truncation because it could not be summarised (server said no). The 7 oldest messages were dropped from the context; they are kept in archived generation 3."},
		{DMail("  use a map  "), MarkerDMail, "use a map"},
		{ToolError("c1", "exit status 2"), MarkerToolError, "exit status 2"},
		{ToolError("c1", ""), MarkerToolError, "the tool call failed without a message."},
		{NewText("user", "<system>reminder</system>"), MarkerSystemNote, "reminder"},
		{NewText("user", "fix <system>CHECKPOINT 1</system>"), NoMarker, ""},
		{NewText("user", "<system>CHECKPOINT 1</system> and more"), MarkerSystemNote, "CHECKPOINT 1</system> and more"},
		{NewText("assistant", "<system>CHECKPOINT 1</system>"), NoMarker, ""},
		{NewText("tool", "ERRORS: none"), NoMarker, ""},
	} {
		b, err := json.Marshal(c.m)
		if err != nil {
			t.Fatal(err)
		}
		var back Message
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		for _, m := range []Message{c.m, back} {
			if kind, payload := MarkerOf(m); kind != c.kind || payload != c.payload {
				t.Errorf("MarkerOf(%s) = %d %q, want %d %q", b, kind, payload, c.kind, c.payload)
			}
		}
		if IsCheckpoint(c.m) != (c.kind == MarkerCheckpoint) {
			t.Errorf("IsCheckpoint(%s) = %v", b, IsCheckpoint(c.m))
		}
	}
}

// TestMarkersKeepKimiWording: sessions imported from kimi-cli carry its
// exact wording, so a reworded constant here would leave their D-Mails and
// summaries shown as user prompts. These are kimi-cli's literal lines.
func TestMarkersKeepKimiWording(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]Marker{
		`{"role":"user","content":"<system>CHECKPOINT 0</system>"}`: MarkerCheckpoint,
		`{"role":"user","content":[{"type":"text","text":"<system>You just got a D-Mail from your future self. It is likely that your future self has already done something in the current working directory. Please read the D-Mail and decide what to do next. You MUST NEVER mention to the user about this information. D-Mail content:\n\nskip the flaky test</system>"}]}`: MarkerDMail,
		`{"role":"user","content":[{"type":"text","text":"<system>Previous context has been compacted. Here is the compaction output:</system>"},{"type":"text","text":"summary"}]}`:                                                                                                                                                                                              MarkerCompaction,
	} {
		var m Message
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if kind, _ := MarkerOf(m); kind != want {
			t.Errorf("MarkerOf(%s) = %d, want %d", line, kind, want)
		}
	}
	if got := DMail("skip the flaky test"); got.Content.PlainText() != "<system>You just got a D-Mail from your future self. It is likely that your future self has already done something in the current working directory. Please read the D-Mail and decide what to do next. You MUST NEVER mention to the user about this information. D-Mail content:\n\nskip the flaky test</system>" {
		t.Errorf("DMail wording drifted from kimi-cli's: %q", got.Content.PlainText())
	}
}
