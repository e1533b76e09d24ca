import * as MemoryStore from "../src/MemoryStore.ts"
import { suite } from "./StoreContract.ts"

suite("MemoryStore", MemoryStore.layerMemory)
