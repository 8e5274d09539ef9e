package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed send_dmail.md
var sendDMailDescription string

// sendDMailArgs are SendDMail's arguments.
type sendDMailArgs struct {
	Message      string `json:"message" jsonschema:"The message to your past self. Make it self-contained."`
	CheckpointID int    `json:"checkpoint_id" jsonschema:"The checkpoint to send the D-Mail to (N of <system>CHECKPOINT N</system>)."`
}

func (sendDMailArgs) About() About {
	return About{Name: "SendDMail", Description: sendDMailDescription, Params: map[string]Param{
		"checkpoint_id": {Minimum: Min(0)},
	}}
}

func (a sendDMailArgs) Label() string { return fmt.Sprintf("→ checkpoint %d", a.CheckpointID) }

// SendDMail queues a D-Mail; the soul backtracks after the step.
type SendDMail struct{ Typed[sendDMailArgs] }

// DMailNotDelivered is the output of a successful call: on success the
// context is rewound, so the model only ever sees it when the backtrack did
// not happen (kimi-cli's trick).
const DMailNotDelivered = "If you see this message, the D-Mail was not delivered: the backtrack did not happen (for example because another tool call in this step was rejected or the run was interrupted)."

func (t *SendDMail) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	if strings.TrimSpace(a.Message) == "" {
		return invalidArgs(t.Name(), "the message is empty; tell your past self what to do differently.")
	}
	if env.DMail == nil {
		return errorResult("unavailable", "D-Mail is not available in this session.")
	}
	if err := env.DMail(a.Message, a.CheckpointID); err != nil {
		return errorResult("D-Mail failed", "The D-Mail was not sent: %v.", strings.TrimSuffix(err.Error(), "."))
	}
	return Result{Output: DMailNotDelivered, Brief: fmt.Sprintf("D-Mail to checkpoint %d", a.CheckpointID)}
}
