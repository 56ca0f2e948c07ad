package objects_test

import (
	"testing"

	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/objectstest"
)

func TestMemoryConformance(t *testing.T) {
	objectstest.Run(t, func(t *testing.T) objects.Store { return objects.NewMemory() })
}

func FuzzMemoryPutOpen(f *testing.F) { objectstest.Fuzz(f, objects.NewMemory()) }
