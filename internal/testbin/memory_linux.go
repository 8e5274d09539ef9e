package testbin

import "syscall"

// memoryRoot is /dev/shm when it is a tmpfs whose files may be run (the
// tests run scripts and binaries from their directories), else "".
func memoryRoot() string {
	const tmpfsMagic, stNoexec = 0x01021994, 0x8
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil || st.Type != tmpfsMagic || st.Flags&stNoexec != 0 {
		return ""
	}
	if err := syscall.Access("/dev/shm", 0x2|0x1); err != nil { // W_OK|X_OK
		return ""
	}
	return "/dev/shm"
}
