package quota

import "github.com/hivegate/hivegate/config"

// SubjectForTest is a subject with a counter id of the test's choosing.
func SubjectForTest(id string, c config.QuotaClass) Subject {
	return Subject{Kind: SubjectKey, Name: "test", id: id, Class: c}
}
