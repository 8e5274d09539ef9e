// Package instructions finds the project instructions the agent follows:
// AGENTS.md files from the user's global rewind home and from the work dir
// and its parents up to the repository root, and formats them for the
// system prompt.
package instructions
