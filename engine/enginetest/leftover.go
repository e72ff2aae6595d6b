package enginetest

import (
	"fmt"
	"reflect"
	"unsafe"
)

// FillLeftover sets every field of *p, unexported ones included, to a
// value that is not its zero value, as a Config or an Event left by
// another conversation (or by no conversation at all) may hold. Code
// that resets such a value field by field rather than with a literal is
// checked with it: a field added later and not reset shows as left over.
// p must point to a struct of strings, booleans, numbers, arrays and
// structs of those; anything else is a mistake in the test, reported by
// a panic.
func FillLeftover(p any) {
	fill(reflect.ValueOf(p).Elem())
}

func fill(v reflect.Value) {
	if !v.CanSet() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(v.Field(i))
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i))
		}
	case reflect.String:
		v.SetString("left over")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(7.5)
	default:
		panic(fmt.Sprintf("enginetest.FillLeftover: a field of kind %s", v.Kind()))
	}
}
