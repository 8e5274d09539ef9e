package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
)

// PlanMode is the session's plan mode, which EnterPlanMode and
// ExitPlanMode switch (the soul implements it). While it is on only
// read-only tools run.
type PlanMode interface {
	InPlanMode() bool
	SetPlanMode(on bool)
}

//go:embed enter_plan_mode.md
var enterPlanModeDescription string

//go:embed exit_plan_mode.md
var exitPlanModeDescription string

type enterPlanModeArgs struct{}

func (enterPlanModeArgs) About() About {
	return About{Name: "EnterPlanMode", Description: enterPlanModeDescription}
}

func (enterPlanModeArgs) Label() string { return "" }

// EnterPlanMode lets the model switch to plan mode. Entering only takes
// tools away, so it asks nobody.
type EnterPlanMode struct{ Typed[enterPlanModeArgs] }

// Schema names no property, but says there are none: some servers refuse
// an object schema without "properties".
func (*EnterPlanMode) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}

// PlanModeOn is EnterPlanMode's output: what plan mode means for the model.
const PlanModeOn = "Plan mode is on. Only read-only tools run now (ReadFile, Glob, Grep, ListDir, FetchURL, SearchWeb, and the explore and plan sub-agents); do not try to change files or run commands. Explore what you need, design the change, then call ExitPlanMode with the whole plan for the user's approval."

func (t *EnterPlanMode) Call(_ context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	if _, res, ok := t.Decode(args); !ok {
		return res
	}
	if env.Plan == nil {
		return errorResult("unavailable", "Plan mode is not available in this session.")
	}
	if env.Plan.InPlanMode() {
		return errorResult("already planning", "Plan mode is already on. Call ExitPlanMode with your plan when it is ready.")
	}
	env.Plan.SetPlanMode(true)
	return Result{Output: PlanModeOn, Brief: "plan mode on"}
}

// exitPlanModeArgs are ExitPlanMode's arguments.
type exitPlanModeArgs struct {
	Plan string `json:"plan" jsonschema:"The whole plan, in markdown: goal, files and changes, steps in order, how the result is checked, open questions."`
}

func (exitPlanModeArgs) About() About {
	return About{Name: "ExitPlanMode", Description: exitPlanModeDescription}
}

// Label is the plan's first line without its heading marks ("## Plan").
func (a exitPlanModeArgs) Label() string {
	return strings.TrimSpace(strings.TrimLeft(firstLine(a.Plan), "#"))
}

// ExitPlanMode shows the model's plan to the user, who approves it (plan
// mode ends), asks for a revision with feedback, or rejects it.
type ExitPlanMode struct{ Typed[exitPlanModeArgs] }

// The outputs of ExitPlanMode's three answers.
const (
	PlanApproved = "The user approved the plan. Plan mode is off: every tool is available again. Carry out the plan now."
	PlanRevise   = "The user wants the plan revised; plan mode stays on. Revise the plan following their feedback, then call ExitPlanMode again. Their feedback: "
	PlanRejected = "The user rejected the plan. Plan mode stays on; wait for the user's next message."
)

func (t *ExitPlanMode) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	plan := strings.TrimSpace(a.Plan)
	if plan == "" {
		return invalidArgs(t.Name(), "the plan is empty; pass the whole plan in markdown.")
	}
	if env.Plan == nil || !env.Plan.InPlanMode() {
		return errorResult("not planning", "Plan mode is off, so there is no plan to approve: go on with the work (or call EnterPlanMode first to plan).")
	}
	if env.Approve == nil { // nobody to ask (tests, yolo without a soul)
		env.Plan.SetPlanMode(false)
		return Result{Output: PlanApproved, Brief: "plan approved"}
	}
	if ctx.Err() != nil {
		return errorResult("interrupted", "The plan was not shown: the run was interrupted.")
	}
	d := env.Approve(ctx, Approval{Tool: t.Name(), Action: ActionApprovePlan, Description: "Approve this plan: plan mode ends and the model carries it out", Plan: plan})
	fb := strings.TrimSpace(d.Feedback)
	switch {
	case d.Approved:
		env.Plan.SetPlanMode(false)
		return Result{Output: PlanApproved, Brief: "plan approved"}
	case d.Continue && fb != "":
		return Result{Output: PlanRevise + fb, IsError: true, Rejected: true, Continue: true, Brief: "revise the plan"}
	}
	out := PlanRejected
	if fb != "" {
		out += " Their note: " + fb
	}
	return Result{Output: out, IsError: true, Rejected: true, Brief: "plan rejected"}
}
