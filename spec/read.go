package spec

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/simctl/simctl/engine"
)

// ReadFile reads an input file of at most limit bytes; what names it in
// errors ("machine file"). It looks before it reads: anything that is not
// a regular file once symlinks are followed (a named pipe, a device such as
// /dev/zero, a socket, a folder) is refused before it is opened, since
// opening a pipe blocks until a writer comes and a device never ends; a
// file larger than limit is refused from its size alone. It then reads
// through the limit, so that a file that grows while it is read costs at
// most limit+1 bytes. Errors name the file and give the operating
// system's reason (permission denied, too many levels of symbolic links).
func ReadFile(file, what string, limit int64) ([]byte, error) {
	info, err := os.Stat(file)
	if err != nil {
		return nil, readError(file, what, err)
	}
	if kind := special(info.Mode()); kind != "" {
		return nil, &Error{Pos: engine.Pos{File: file}, Msg: fmt.Sprintf("cannot read %s: it is %s, not a regular file", what, kind)}
	}
	if info.Size() > limit {
		return nil, tooLarge(file, info.Size(), limit)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, readError(file, what, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, readError(file, what, err)
	}
	if int64(len(data)) > limit {
		return nil, &Error{Pos: engine.Pos{File: file, Line: 1, Col: 1}, Msg: fmt.Sprintf("file is more than the %d bytes allowed", limit)}
	}
	return data, nil
}

// readOptional is ReadFile for a file a suite may leave out: a file that
// does not exist gives nil data and no error.
func readOptional(file, what string, limit int64) ([]byte, error) {
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return ReadFile(file, what, limit)
}

func tooLarge(file string, size, limit int64) error {
	return &Error{Pos: engine.Pos{File: file, Line: 1, Col: 1}, Msg: fmt.Sprintf("file is %d bytes, more than the %d allowed", size, limit)}
}

// readError says why file could not be read, without the operation and
// path an *os.PathError repeats.
func readError(file, what string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{Pos: engine.Pos{File: file}, Msg: fmt.Sprintf("cannot read %s: %v", what, err)}
}

// special names the kind of a file that is not a regular one ("" for a
// regular file).
func special(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// MaxQuoted is how many characters of a value an error message quotes.
const MaxQuoted = 80

// Quote quotes s as %q does, cut after MaxQuoted characters with "…", so
// that an error about a long value (a 3 MB scalar, a whole file read as
// one) stays one short line.
func Quote(s string) string {
	if utf8.RuneCountInString(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == MaxQuoted {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}
