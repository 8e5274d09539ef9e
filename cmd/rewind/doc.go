// Command rewind is a terminal coding agent whose history is never lost.
// This file declares the flags and subcommands (README: CLI) and hands every
// one of them to package app, which owns their behaviour.
package main
