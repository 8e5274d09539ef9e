// Package tools holds the agent's tools (Shell, ReadFile, WriteFile,
// StrReplaceFile, Glob, Grep, ListDir, Think, SetTodoList, SendDMail,
// EnterPlanMode, ExitPlanMode), one
// file each, with the description sent to the model embedded from a .md file
// next to it.
//
// A tool never panics and never returns a Go error: every failure — bad
// arguments, a missing file, a rejected approval, a timeout — is a Result with
// IsError set and an Output that tells the model what went wrong. The caller
// (the soul) supplies an Env per call: the work dir, live output, approvals,
// the file-checkpoint tracker, D-Mail and the todo list.
//
// Paths resolve against Env.WorkDir. Reading outside it asks for approval
// (ActionAccessOutside); writing outside it asks with ActionEditOutside; a
// write through a symlink inside the work dir that points outside it is
// refused outright.
//
// LoopDetector spots the model repeating (nearly) the same shell command.
package tools
