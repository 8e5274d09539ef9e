// Package unidiff owns the line-based unified diff shown in approval
// requests and file-rewind previews. It is a leaf: the tools and the file
// checkpoints both use it without importing each other.
package unidiff
