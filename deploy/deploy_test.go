package deploy_test

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"
)

// The part of the batch/v1 Job schema the examples use. Decoding with
// KnownFields rejects any field these structs do not name, which is as far
// as the schema can be checked offline without a cluster.
type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string      `yaml:"restartPolicy"`
				Containers    []container `yaml:"containers"`
				Volumes       []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type container struct {
	Name      string   `yaml:"name"`
	Image     string   `yaml:"image"`
	Command   []string `yaml:"command"`
	Args      []string `yaml:"args"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

func decodeStrict(file string, v any) {
	data, err := os.ReadFile(file)
	Expect(err).NotTo(HaveOccurred())
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	Expect(dec.Decode(v)).To(Succeed(), file)
}

var _ = Describe("the Kubernetes example", func() {
	It("is an Indexed Job whose pods each run one shard, chosen by JOB_COMPLETION_INDEX", func() {
		var j job
		decodeStrict("k8s/simctl-shards.yaml", &j)
		Expect(j.APIVersion).To(Equal("batch/v1"))
		Expect(j.Kind).To(Equal("Job"))
		Expect(j.Spec.CompletionMode).To(Equal("Indexed"))
		Expect(j.Spec.Completions).NotTo(BeNil())
		n := *j.Spec.Completions
		Expect(j.Spec.Parallelism).To(HaveValue(Equal(n)))
		Expect(j.Spec.Template.Spec.RestartPolicy).To(BeElementOf("Never", "OnFailure"))
		Expect(j.Spec.Template.Spec.Containers).To(HaveLen(1))
		args := strings.Join(j.Spec.Template.Spec.Containers[0].Args, " ")
		Expect(args).To(ContainSubstring(`--shard "${JOB_COMPLETION_INDEX}/` + strconv.Itoa(n) + `"`))
		Expect(args).To(ContainSubstring(`--out "/results/shard-${JOB_COMPLETION_INDEX}"`))
		for _, m := range j.Spec.Template.Spec.Containers[0].VolumeMounts {
			found := false
			for _, v := range j.Spec.Template.Spec.Volumes {
				found = found || v.Name == m.Name
			}
			Expect(found).To(BeTrue(), "volume %s is mounted but not declared", m.Name)
		}
	})

	It("merges the shards in a second Job", func() {
		var j job
		decodeStrict("k8s/simctl-merge.yaml", &j)
		Expect(j.Kind).To(Equal("Job"))
		Expect(strings.Join(j.Spec.Template.Spec.Containers[0].Args, " ")).To(ContainSubstring("simctl report merge /results/shard-*"))
	})
})

var _ = Describe("the CI matrix example", func() {
	It("runs shard i of n for every i in the matrix, then merges them", func() {
		var wf struct {
			Jobs map[string]struct {
				Strategy struct {
					Matrix struct {
						Shard []int `yaml:"shard"`
					} `yaml:"matrix"`
				} `yaml:"strategy"`
				Needs string `yaml:"needs"`
				Steps []struct {
					Run string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		data, err := os.ReadFile("ci/simctl-shards.yml")
		Expect(err).NotTo(HaveOccurred())
		Expect(yaml.Unmarshal(data, &wf)).To(Succeed())
		shards := wf.Jobs["shard"].Strategy.Matrix.Shard
		for i, s := range shards {
			Expect(s).To(Equal(i))
		}
		var runs []string
		for _, st := range wf.Jobs["shard"].Steps {
			runs = append(runs, st.Run)
		}
		Expect(strings.Join(runs, "\n")).To(MatchRegexp(regexp.QuoteMeta("--shard ${{ matrix.shard }}/" + strconv.Itoa(len(shards)))))
		Expect(wf.Jobs["merge"].Needs).To(Equal("shard"))
		runs = nil
		for _, st := range wf.Jobs["merge"].Steps {
			runs = append(runs, st.Run)
		}
		Expect(strings.Join(runs, "\n")).To(ContainSubstring("simctl report merge out/shard-*"))
	})
})
