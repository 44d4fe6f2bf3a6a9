/* picajit from C: load a real shader binary through register writes (the commands a game's
 * shaderProgramUse sends), configure the vertex inputs and uniforms as a command list would,
 * run one indexed draw, print the output vertices.
 *
 *   cc -I capi/include examples/c/draw.c target/debug/libpicajit_capi.a -lpthread -ldl -lm
 *   ./a.out ../shared/corpus/shbin/lovebrew__lovepotion__main_v_pica.shbin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picajit.h"
#include "scene.h"

static void check(PicajitStatus status, const char *what) {
    if (status != PICAJIT_STATUS_OK) {
        fprintf(stderr, "%s: status %d: %s\n", what, (int)status, picajit_last_error());
        exit(1);
    }
}

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.shbin [interp|sse41|avx2|avx512|aarch64]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static uint8_t file[1 << 20];
    size_t len = fread(file, 1, sizeof file, f);
    fclose(f);

    PicajitBackend backend = PICAJIT_BACKEND_AUTO;
    if (argc > 2 && !strcmp(argv[2], "interp")) backend = PICAJIT_BACKEND_INTERPRETER;
    if (argc > 2 && !strcmp(argv[2], "sse41")) backend = PICAJIT_BACKEND_X64_SSE41;
    if (argc > 2 && !strcmp(argv[2], "avx2")) backend = PICAJIT_BACKEND_X64_AVX2;
    if (argc > 2 && !strcmp(argv[2], "avx512")) backend = PICAJIT_BACKEND_X64_AVX512;
    if (argc > 2 && !strcmp(argv[2], "aarch64")) backend = PICAJIT_BACKEND_AARCH64;
    PicajitPipeline *gpu = NULL;
    check(picajit_pipeline_new(backend, &gpu), "picajit_pipeline_new");

    /* 1. The shader: code, descriptors, constants, entry point, output map. */
    size_t count = 0;
    PicajitStatus s = picajit_shbin_commands(file, len, 0, NULL, 0, &count);
    if (s != PICAJIT_STATUS_OK && s != PICAJIT_STATUS_BUFFER_TOO_SMALL) check(s, "picajit_shbin_commands");
    PicajitRegWrite *commands = malloc(count * sizeof *commands);
    check(picajit_shbin_commands(file, len, 0, commands, count, &count), "picajit_shbin_commands");
    check(picajit_write_many(gpu, commands, count), "picajit_write_many");
    free(commands);

    /* 2. Vertex inputs: three attributes into v0, v1, v2 (INPUTBUFFER_CONFIG, permutation). */
    check(picajit_write(gpu, 0x2B9, 0xA0000000u | 2, 0xF), "input config");
    check(picajit_write(gpu, 0x2BB, 0x76543210u, 0xF), "permutation low");
    check(picajit_write(gpu, 0x2BC, 0xFEDCBA98u, 0xF), "permutation high");

    /* 3. Uniforms c0-c7 in float32 mode: the index register, then w, z, y, x per vector. */
    check(picajit_write(gpu, 0x2C0, 0x80000000u | 0, 0xF), "uniform index");
    for (int row = 0; row < 8; row++)
        for (int c = 3; c >= 0; c--)
            check(picajit_write(gpu, 0x2C1, bits(scene_uniforms[row][c]), 0xF), "uniform data");

    /* 4. One indexed draw: positions and texture coordinates interleaved, colours apart. */
    PicajitAttribute attributes[3];
    memset(attributes, 0, sizeof attributes);
    attributes[0].data = scene_pos_uv;
    attributes[0].len = sizeof scene_pos_uv / sizeof(float);
    attributes[0].stride = 5;
    attributes[0].components = 3;
    attributes[1].data = scene_colors;
    attributes[1].len = sizeof scene_colors / sizeof(float);
    attributes[1].stride = 4;
    attributes[1].components = 4;
    attributes[2].data = scene_pos_uv;
    attributes[2].len = sizeof scene_pos_uv / sizeof(float);
    attributes[2].offset = 3;
    attributes[2].stride = 5;
    attributes[2].components = 2;
    PicajitDraw draw = {PICAJIT_INDEX_TYPE_U16, scene_indices, sizeof scene_indices / sizeof scene_indices[0], 0};
    PicajitDrawInfo info;
    check(picajit_draw(gpu, &draw, attributes, 3, &info), "picajit_draw");

    /* 5. The results: output vertices in semantic order and the index list. */
    PicajitOutputVertex *vertices = malloc(info.vertices * sizeof *vertices);
    uint32_t *indices = malloc(info.indices * sizeof *indices);
    size_t written = 0;
    check(picajit_copy_vertices(gpu, vertices, info.vertices, &written), "picajit_copy_vertices");
    check(picajit_copy_indices(gpu, indices, info.indices, &written), "picajit_copy_indices");
    printf("%zu vertices, %zu indices\n", info.vertices, info.indices);
    for (size_t v = 0; v < info.vertices; v++) {
        const float *o = vertices[v].slots;
        printf("vertex %zu: position %g %g %g %g color %g %g %g %g texcoord0 %g %g\n", v,
               o[0], o[1], o[2], o[3], o[8], o[9], o[10], o[11], o[12], o[13]);
        printf("  bits");
        for (int k = 0; k < 24; k++) printf(" %08x", bits(o[k]));
        printf("\n");
    }
    printf("indices");
    for (size_t i = 0; i < info.indices; i++) printf(" %u", indices[i]);
    printf("\n");
    free(vertices);
    free(indices);
    picajit_pipeline_free(gpu);
    return 0;
}
