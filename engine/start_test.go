package engine_test

import (
	"fmt"
	"reflect"
	"unsafe"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// fill sets every field of v, unexported ones included, to a value that
// is not its zero value, as a Config left by another conversation (or by
// no conversation at all) may hold.
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
		Fail("fill: a Config field of kind " + v.Kind().String())
	}
}

var _ = Describe("Start", func() {
	DescribeTable("gives a Config holding anything the Config it gives a zero one, the short way and the general",
		func(dir string) {
			s, err := spec.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			for _, m := range []*engine.Machine{s.Machine, engine.GeneralOnly(s.Machine)} {
				var clean, used engine.Config
				var cr, ur engine.Result
				fill(reflect.ValueOf(&used).Elem())
				cerr := m.StartWith(&clean, m.NewData("start"), 1500, &cr)
				uerr := m.StartWith(&used, m.NewData("start"), 1500, &ur)
				Expect(fmt.Sprint(uerr)).To(Equal(fmt.Sprint(cerr)))
				Expect(used).To(Equal(clean))
				Expect(ur.Steps).To(Equal(cr.Steps))
				Expect(ur.Effects).To(Equal(cr.Effects))
			}
		},
		bundledSuites())
})
